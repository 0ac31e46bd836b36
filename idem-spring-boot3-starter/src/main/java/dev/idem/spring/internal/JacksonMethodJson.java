package dev.idem.spring.internal;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.deser.AbstractDeserializer;
import com.fasterxml.jackson.databind.deser.DefaultDeserializationContext;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.ser.impl.UnknownSerializer;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.springframework.beans.factory.BeanFactory;

/**
 * {@link MethodJson} on Jackson 2, the line of Spring Boot 3: the application's {@link ObjectMapper}
 * bean (Spring Boot's), else a default mapper with the Jackson modules found on the class path (as
 * Boot's has). Jackson 2's checked exceptions leave as {@link UncheckedIOException}s. idem-spring-boot-starter
 * has a class of this name on Jackson 3; what both do alike is {@link JacksonTypes}.
 */
public final class JacksonMethodJson extends JacksonTypes<JavaType> {
    /** The mapper's class, for {@code @ConditionalOnClass}: without Jackson, no {@code @IdempotentMethod}. */
    public static final String MAPPER_CLASS = "com.fasterxml.jackson.databind.ObjectMapper";

    private final ObjectMapper mapper;
    private final ObjectWriter sorted;

    private JacksonMethodJson(ObjectMapper mapper) {
        super(type -> mapper.getTypeFactory().constructType(type), JavaType::toCanonical, JavaType::getRawClass,
                type -> type.isContainerType() || type.isReferenceType() ? type.getContentType() : null);
        this.mapper = mapper;
        this.sorted = mapper.writer().with(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);
    }

    /** Over the application's mapper, looked up now. */
    public static MethodJson of(BeanFactory beans) {
        return new JacksonMethodJson(beans.getBeanProvider(ObjectMapper.class)
                .getIfAvailable(() -> JsonMapper.builder().findAndAddModules().build()));
    }

    @Override
    public byte[] writeSorted(Object value) {
        return unchecked(() -> sorted.writeValueAsBytes(value));
    }

    @Override
    public byte[] write(Object value) {
        return unchecked(() -> mapper.writeValueAsBytes(value));
    }

    // Jackson's own lookups: the deserializer and serializer it would use, from contexts as readValue and
    // writeValue make them.
    @Override
    boolean deserializedAsAbstract(JavaType type) {
        return unchecked(() -> ((DefaultDeserializationContext) mapper.getDeserializationContext())
                .createInstance(mapper.getDeserializationConfig(), null, mapper.getInjectableValues())
                .findRootValueDeserializer(type) instanceof AbstractDeserializer);
    }

    @Override
    boolean serializedAsUnknown(JavaType type) {
        return unchecked(() -> mapper.getSerializerProviderInstance().findValueSerializer(type) instanceof UnknownSerializer);
    }

    @Override
    Object read(byte[] json, JavaType type) {
        return unchecked(() -> mapper.readValue(json, type));
    }

    /** A call on Jackson 2, which declares its failures as checked {@link IOException}s. */
    private interface Call<R> {
        R run() throws IOException;
    }

    private static <R> R unchecked(Call<R> call) {
        try {
            return call.run();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
