package dev.idem.spring.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.deser.AbstractDeserializer;
import com.fasterxml.jackson.databind.deser.DefaultDeserializationContext;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.ser.impl.UnknownSerializer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Type;
import org.springframework.beans.factory.BeanFactory;

/**
 * {@link MethodJson} on Jackson 2, the line of Spring Boot 3: the application's {@link ObjectMapper}
 * bean (Spring Boot's), else a default mapper with the Jackson modules found on the class path (as
 * Boot's has). Jackson 2's checked exceptions leave as {@link UncheckedIOException}s. idem-spring-boot-starter
 * has a class of this name on Jackson 3.
 */
public final class JacksonMethodJson implements MethodJson {
    /** The mapper's class, for {@code @ConditionalOnClass}: without Jackson, no {@code @IdempotentMethod}. */
    public static final String MAPPER_CLASS = "com.fasterxml.jackson.databind.ObjectMapper";

    private final ObjectMapper mapper;
    private final ObjectWriter sorted;

    private JacksonMethodJson(ObjectMapper mapper) {
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
        try {
            return sorted.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public byte[] write(Object value) {
        try {
            return mapper.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public ValueType type(Type type) {
        JavaType resolved = mapper.getTypeFactory().constructType(type);
        return new ValueType() {
            @Override
            public String canonical() {
                return resolved.toCanonical();
            }

            @Override
            public Unreadable unreadable() {
                return unreadablePart(resolved);
            }

            @Override
            public Object read(byte[] json) {
                try {
                    return mapper.readValue(json, resolved);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        };
    }

    private Unreadable unreadablePart(JavaType part) {
        if (part.isContainerType() || part.isReferenceType()) {
            return unreadablePart(part.getContentType());
        }
        if (part.getRawClass() == Object.class) {
            return new Unreadable(part.toCanonical(), Reason.OBJECT);
        }
        try {
            // Jackson's own lookups: the deserializer and serializer it would use, from contexts as readValue
            // and writeValue make them.
            DefaultDeserializationContext reading = ((DefaultDeserializationContext) mapper.getDeserializationContext())
                    .createInstance(mapper.getDeserializationConfig(), null, mapper.getInjectableValues());
            if (reading.findRootValueDeserializer(part) instanceof AbstractDeserializer) {
                return new Unreadable(part.toCanonical(), Reason.ABSTRACT);
            }
            if (mapper.getSerializerProviderInstance().findValueSerializer(part) instanceof UnknownSerializer) {
                return new Unreadable(part.toCanonical(), Reason.NO_PROPERTIES);
            }
        } catch (JsonMappingException e) {
            throw new UncheckedIOException(e);
        }
        return null;
    }
}
