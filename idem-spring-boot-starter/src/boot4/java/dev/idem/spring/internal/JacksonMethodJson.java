package dev.idem.spring.internal;

import org.springframework.beans.factory.BeanFactory;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.deser.AbstractDeserializer;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.ser.impl.UnknownSerializer;

/**
 * {@link MethodJson} on Jackson 3, the line of Spring Boot 4: the application's {@link JsonMapper}
 * bean (Spring Boot's), else Jackson's shared default. The Boot 3 starter has a class of this name
 * on Jackson 2; what both do alike is {@link JacksonTypes}.
 */
public final class JacksonMethodJson extends JacksonTypes<JavaType> {
    /** The mapper's class, for {@code @ConditionalOnClass}: without Jackson, no {@code @IdempotentMethod}. */
    public static final String MAPPER_CLASS = "tools.jackson.databind.json.JsonMapper";

    private final JsonMapper mapper;
    private final ObjectWriter sorted;

    private JacksonMethodJson(JsonMapper mapper) {
        super(type -> mapper.getTypeFactory().constructType(type), JavaType::toCanonical, JavaType::getRawClass,
                type -> type.isContainerType() || type.isReferenceType() ? type.getContentType() : null);
        this.mapper = mapper;
        this.sorted = mapper.writer().with(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);
    }

    /** Over the application's mapper, looked up now. */
    public static MethodJson of(BeanFactory beans) {
        return new JacksonMethodJson(beans.getBeanProvider(JsonMapper.class).getIfAvailable(JsonMapper::shared));
    }

    @Override
    public byte[] writeSorted(Object value) {
        return sorted.writeValueAsBytes(value);
    }

    @Override
    public byte[] write(Object value) {
        return mapper.writeValueAsBytes(value);
    }

    // Jackson's own lookups (public, if underscored): the deserializer and serializer it would use.
    @Override
    boolean deserializedAsAbstract(JavaType type) {
        return mapper._deserializationContext().findRootValueDeserializer(type) instanceof AbstractDeserializer;
    }

    @Override
    boolean serializedAsUnknown(JavaType type) {
        return mapper._serializationContext().findValueSerializer(type) instanceof UnknownSerializer;
    }

    @Override
    Object read(byte[] json, JavaType type) {
        return mapper.readValue(json, type);
    }
}
