package dev.idem.spring.internal;

import java.io.UncheckedIOException;
import java.lang.reflect.Type;

/**
 * How {@code @IdempotentMethod} writes values as JSON and reads them back, over the application's
 * mapper: the fingerprint parts, the stored return values, and the startup check of a return type.
 * {@link JacksonMethodJson} implements it once per Spring Boot line: Jackson 3's {@code JsonMapper}
 * on Boot 4, Jackson 2's {@code ObjectMapper} on Boot 3 (see docs/getting-started.md), each over
 * {@link JacksonTypes}, which holds what the two do alike.
 */
public interface MethodJson {

    /** {@code value} as JSON, map entries sorted by key (so that equal maps are the same request). */
    byte[] writeSorted(Object value);

    /** {@code value} as JSON. */
    byte[] write(Object value);

    /** The values of {@code type} (a method's generic return type), as the mapper reads them. */
    ValueType type(Type type);

    /** One return type, resolved once. */
    interface ValueType {
        /** The type's name with its type parameters, e.g. {@code java.util.List<com.example.Order>}. */
        String canonical();

        /**
         * Why values of this type would not read back as what was written (looking through containers
         * and {@code Optional} at their elements), or null when nothing says so.
         */
        Unreadable unreadable();

        Object read(byte[] json);
    }

    /** The part of a return type (the type itself, or an element type) whose values do not read back, and why. */
    record Unreadable(String part, Reason reason) {
    }

    /** Why a type's values do not read back. */
    enum Reason {
        OBJECT("reads back as whatever the JSON holds (a map, a list, a string), not the object returned"),
        ABSTRACT("is an interface or abstract class, which Jackson cannot instantiate without type information"),
        NO_PROPERTIES("has no properties Jackson sees, so it would be stored as {}");

        private final String text;

        Reason(String text) {
            this.text = text;
        }

        public String text() {
            return text;
        }
    }

    /**
     * The class that names a failure of the mapper: Jackson 2's checked exceptions come wrapped in an
     * {@link UncheckedIOException}, whose cause says more.
     */
    static String failureName(Throwable failure) {
        Throwable named = failure instanceof UncheckedIOException && failure.getCause() != null ? failure.getCause() : failure;
        return named.getClass().getName();
    }
}
