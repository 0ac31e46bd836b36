package dev.idem.spring.internal;

import java.lang.reflect.Type;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * What {@link MethodJson} does alike on both Jackson lines: a return type resolved once, and the search
 * through containers and {@code Optional} for the part whose values would not read back. Each line's
 * {@code JacksonMethodJson} gives its mapper's calls: the accessors of its {@code JavaType} ({@code T},
 * a class of its own on each line) here, and the lookups, reads and writes, whose classes and checked
 * exceptions differ between Jackson 2 and 3, as methods.
 *
 * @param <T> the line's {@code JavaType}
 */
abstract class JacksonTypes<T> implements MethodJson {
    private final Function<Type, T> resolve;
    private final Function<T, String> canonical;
    private final Function<T, Class<?>> rawClass;
    private final UnaryOperator<T> content;

    /**
     * @param resolve   a type as the mapper resolves it
     * @param canonical the type's name with its type parameters
     * @param rawClass  the type's class
     * @param content   the element type of a container or reference type ({@code Optional}), else null
     */
    JacksonTypes(Function<Type, T> resolve, Function<T, String> canonical, Function<T, Class<?>> rawClass, UnaryOperator<T> content) {
        this.resolve = resolve;
        this.canonical = canonical;
        this.rawClass = rawClass;
        this.content = content;
    }

    /** Whether the deserializer the mapper would use for a root value of {@code type} is Jackson's abstract one. */
    abstract boolean deserializedAsAbstract(T type);

    /** Whether the serializer the mapper would use for {@code type} is Jackson's one for types without properties. */
    abstract boolean serializedAsUnknown(T type);

    abstract Object read(byte[] json, T type);

    @Override
    public final ValueType type(Type type) {
        T resolved = resolve.apply(type);
        return new ValueType() {
            @Override
            public String canonical() {
                return canonical.apply(resolved);
            }

            @Override
            public Unreadable unreadable() {
                return unreadablePart(resolved);
            }

            @Override
            public Object read(byte[] json) {
                return JacksonTypes.this.read(json, resolved);
            }
        };
    }

    private Unreadable unreadablePart(T part) {
        T element = content.apply(part);
        if (element != null) {
            return unreadablePart(element);
        }
        Reason reason = rawClass.apply(part) == Object.class ? Reason.OBJECT
                : deserializedAsAbstract(part) ? Reason.ABSTRACT
                : serializedAsUnknown(part) ? Reason.NO_PROPERTIES
                : null;
        return reason == null ? null : new Unreadable(canonical.apply(part), reason);
    }
}
