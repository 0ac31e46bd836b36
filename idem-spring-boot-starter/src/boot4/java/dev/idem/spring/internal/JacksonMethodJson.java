package dev.idem.spring.internal;

import java.lang.reflect.Type;
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
 * on Jackson 2.
 */
public final class JacksonMethodJson implements MethodJson {
    /** The mapper's class, for {@code @ConditionalOnClass}: without Jackson, no {@code @IdempotentMethod}. */
    public static final String MAPPER_CLASS = "tools.jackson.databind.json.JsonMapper";

    private final JsonMapper mapper;
    private final ObjectWriter sorted;

    private JacksonMethodJson(JsonMapper mapper) {
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
                return mapper.readValue(json, resolved);
            }
        };
    }

    private Unreadable unreadablePart(JavaType part) {
        if (part.isContainerType() || part.isReferenceType()) {
            return unreadablePart(part.getContentType());
        }
        // Jackson's own lookups (public, if underscored): the deserializer and serializer it would use.
        if (part.getRawClass() == Object.class) {
            return new Unreadable(part.toCanonical(), Reason.OBJECT);
        } else if (mapper._deserializationContext().findRootValueDeserializer(part) instanceof AbstractDeserializer) {
            return new Unreadable(part.toCanonical(), Reason.ABSTRACT);
        } else if (mapper._serializationContext().findValueSerializer(part) instanceof UnknownSerializer) {
            return new Unreadable(part.toCanonical(), Reason.NO_PROPERTIES);
        }
        return null;
    }
}
