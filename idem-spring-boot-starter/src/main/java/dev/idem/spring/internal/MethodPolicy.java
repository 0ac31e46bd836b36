package dev.idem.spring.internal;

import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.spring.IdemProperties;
import dev.idem.spring.IdempotentMethod;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.env.PropertyResolver;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * One {@link IdempotentMethod} of one bean, read and checked once: its scope, its key and fingerprint
 * expressions, its engine settings and how its return value is stored. Built when the bean is, so a
 * bad annotation fails startup with a message naming the method.
 *
 * <p>The default scope is {@code [beanName:]class#method(parameter types)}: the parameter types keep
 * overloads apart, and the bean's name leads when several beans share the class. Neither a class
 * nor a parameter type name can contain {@code :}, {@code #} or {@code (}, so the text names one
 * bean method.
 */
public final class MethodPolicy {
    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final ParameterNameDiscoverer NAMES = new DefaultParameterNameDiscoverer();
    /** {@code #name} references outside string literals; functions ({@code #f(}) are not variables. */
    private static final Pattern VARIABLE = Pattern.compile("#([A-Za-z_][A-Za-z0-9_]*)(?!\\s*\\()");
    private static final Pattern INDEXED = Pattern.compile("[pa][0-9]+");
    /** The principal part of every method scope: keeps them apart from HTTP scopes ({@code user:…}, {@code credential:…}). */
    private static final String PRINCIPAL = "method";
    /**
     * Marks a record whose method ran but whose return value could not be stored; its value is the
     * reason. Status 200, the status of every stored method result, so any storage policy that
     * stores method results stores it too.
     */
    private static final String NOT_STORED = "Idem-Method-Result-Not-Stored";

    private final Class<?> type;
    private final Method method;
    private final String where;
    private final Scope scope;
    private final boolean defaultScope;
    private final String keyText;
    private final Expression key;
    private final List<String> fingerprintTexts;
    private final List<Expression> fingerprint;
    private final EngineOverrides.Settings settings;
    private final boolean returnsVoid;
    private volatile Idem engine;
    private volatile MethodJson.ValueType returnType;

    private MethodPolicy(Class<?> type, String beanName, Method method, IdempotentMethod annotation, EngineOverrides variants) {
        this.type = type;
        this.method = method;
        this.where = "@IdempotentMethod on " + type.getName() + "#" + method.getName();
        refuseAsync(method, where);
        this.defaultScope = annotation.scope().isBlank();
        String scopeName = defaultScope ? defaultScope(beanName, type, method) : annotation.scope().trim();
        try {
            this.scope = Scope.of(PRINCIPAL, scopeName);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(where + ": scope: " + e.getMessage(), e);
        }
        this.keyText = annotation.key();
        if (keyText.isBlank()) {
            throw new IllegalStateException(where + ": key is empty; give a SpEL expression over the arguments, e.g. \"#order.id\"");
        }
        this.key = parse(keyText, "key");
        this.fingerprintTexts = List.of(annotation.fingerprint());
        List<Expression> parts = new ArrayList<>();
        for (String text : fingerprintTexts) {
            parts.add(parse(text, "fingerprint"));
        }
        this.fingerprint = List.copyOf(parts);
        this.settings = variants.settings(annotation.lease(), annotation.retention(), annotation.inFlight(),
                annotation.maxWait(), where);
        this.returnsVoid = method.getReturnType() == void.class || method.getReturnType() == Void.class;
    }

    /**
     * Reads {@code method}'s annotation.
     *
     * @param type     the bean's class (the user class, not a proxy's), for the default scope and messages
     * @param beanName the bean's name when the default scope must name it (several beans share the class), else null
     * @throws IllegalStateException naming the method if an expression, a duration or the return type is not usable
     */
    public static MethodPolicy of(Class<?> type, String beanName, Method method, IdempotentMethod annotation,
                                  IdemProperties properties, PropertyResolver placeholders) {
        return new MethodPolicy(type, beanName, method, annotation, new EngineOverrides(properties, placeholders));
    }

    private static String defaultScope(String beanName, Class<?> type, Method method) {
        String parameters = Arrays.stream(method.getParameterTypes()).map(Class::getTypeName).collect(Collectors.joining(","));
        return (beanName == null ? "" : beanName + ":") + type.getName() + "#" + method.getName() + "(" + parameters + ")";
    }

    private static void refuseAsync(Method method, String where) {
        Class<?> returned = method.getReturnType();
        if (Future.class.isAssignableFrom(returned) || CompletionStage.class.isAssignableFrom(returned)
                || returned.getName().startsWith("org.reactivestreams.") || returned.getName().startsWith("reactor.core.publisher.")) {
            throw new IllegalStateException(where + ": returns " + returned.getName() + ", whose work ends after the method"
                    + " returns; an idempotent method must finish its work before it returns");
        }
    }

    /**
     * Refuses a return type whose stored JSON would not read back as the value the method returned:
     * {@code Object} (or {@code Object} elements), which reads back as whatever the JSON holds (a map,
     * a list); an interface or abstract class Jackson cannot instantiate (no type information); a
     * class without properties Jackson sees, stored as {@code {}}. Containers ({@code List},
     * {@code Set}, {@code Map}, arrays, {@code Optional}) are checked by their element types. What
     * passes may still fail to read back (a class without a creator Jackson can use): the first run
     * finds that out, see {@link #stored}.
     *
     * @throws IllegalStateException naming the method, the return type and the fix
     */
    public void checkReturnType(MethodJson json) {
        if (returnsVoid) {
            return;
        }
        MethodJson.ValueType declared = returnType(json);
        MethodJson.Unreadable unreadable = declared.unreadable();
        if (unreadable != null) {
            throw new IllegalStateException(where + ": returns " + declared.canonical() + ", whose stored value cannot be read back: "
                    + unreadable.part() + " " + unreadable.reason().text() + "; declare a concrete return type whose properties round-trip"
                    + " through JSON (a record, a class with getters and a creator Jackson can use, a String, a number),"
                    + " or give the type @JsonTypeInfo");
        }
    }

    private Expression parse(String text, String attribute) {
        Expression expression;
        try {
            expression = PARSER.parseExpression(text);
        } catch (ParseException e) {
            throw new IllegalStateException(where + ": " + attribute + " '" + text + "' is not a SpEL expression: " + e.getMessage(), e);
        }
        checkVariables(text, attribute);
        return expression;
    }

    /** A {@code #name} that is no parameter would evaluate to null on every call: refuse it now. */
    private void checkVariables(String text, String attribute) {
        String[] names = NAMES.getParameterNames(method);
        Set<String> known = new HashSet<>(Set.of("root", "this"));
        if (names != null) {
            known.addAll(Arrays.asList(names));
        }
        Matcher m = VARIABLE.matcher(text.replaceAll("'[^']*'", "''"));
        while (m.find()) {
            String name = m.group(1);
            boolean indexed = INDEXED.matcher(name).matches() && Integer.parseInt(name.substring(1)) < method.getParameterCount();
            if (!known.contains(name) && !indexed) {
                throw new IllegalStateException(where + ": " + attribute + " '" + text + "' refers to #" + name
                        + ", which is not a parameter of the method (" + (names == null
                        ? "its parameter names are not compiled in: compile with -parameters, or use #p0, #p1, …)"
                        : "parameters: " + String.join(", ", names) + "; or #p0, #p1, …)"));
            }
        }
    }

    /** Derives the method's engine from the application's, once; called at startup. */
    public Idem engine(Supplier<Idem> base) {
        Idem current = engine;
        if (current == null) {
            Idem application = base.get();
            if (application == null) {
                throw new IllegalStateException(where + " needs an Idem bean (idem-spring-boot-starter makes one from"
                        + " the application's DataSource, or idem.store=redis)");
            }
            current = EngineOverrides.variant(application, settings, where);
            engine = current;
        }
        return current;
    }

    public String where() {
        return where;
    }

    public Scope scope() {
        return scope;
    }

    /** Whether the scope is the default one (made of bean, class and method), not the annotation's {@code scope}. */
    public boolean hasDefaultScope() {
        return defaultScope;
    }

    /** The bean's class (the user class). */
    public Class<?> type() {
        return type;
    }

    public Method method() {
        return method;
    }

    /**
     * The key of one call.
     *
     * @param root the expressions' root object ({@code #root.target}, {@code #root.args}, …)
     */
    public IdempotencyKey key(Object root, Object[] arguments) {
        Object value = key.getValue(context(root, arguments));
        if (value == null) {
            throw new IllegalArgumentException(where + ": the key expression '" + keyText + "' gave null");
        }
        return IdempotencyKey.of(value.toString());
    }

    /**
     * The fingerprint of one call: each expression's value as JSON, map entries sorted by key (so
     * equal maps in another iteration order are the same request).
     */
    public Fingerprint fingerprint(Object root, Object[] arguments, MethodJson json) {
        if (fingerprint.isEmpty()) {
            return Fingerprint.none();
        }
        EvaluationContext context = context(root, arguments);
        Fingerprint.Builder builder = Fingerprint.builder();
        for (int i = 0; i < fingerprint.size(); i++) {
            byte[] part;
            try {
                part = json.writeSorted(fingerprint.get(i).getValue(context));
            } catch (RuntimeException e) {
                // E.g. a map whose keys are not of one comparable type cannot be sorted. The class only: no argument's value.
                throw new IllegalArgumentException(where + ": the fingerprint '" + fingerprintTexts.get(i)
                        + "' could not be written as JSON with map entries sorted by key (" + MethodJson.failureName(e)
                        + "); nothing ran", e);
            }
            builder.part(fingerprintTexts.get(i), part);
        }
        return builder.build();
    }

    private EvaluationContext context(Object root, Object[] arguments) {
        return new MethodBasedEvaluationContext(root, method, arguments, NAMES);
    }

    /** A return value as stored, and the value the first caller gets: a copy read back from the stored bytes. */
    public record Stored(StoredResponse response, Object copy) {
    }

    /**
     * The stored form of a return value the method just returned: 200 with its JSON (204 for a void
     * method), with the copy a replay would read. If it cannot be stored — encoding fails, the JSON
     * is over {@code maxBytes}, or it does not read back as the return type — a not-stored marker
     * instead: the method ran, so the key must not be given back. Never throws for the value.
     */
    public Stored stored(Object value, MethodJson codec, int maxBytes) {
        if (returnsVoid) {
            return new Stored(StoredResponse.of(204, new byte[0]), null);
        }
        byte[] json;
        try {
            json = codec.write(value);
        } catch (RuntimeException | StackOverflowError e) {
            // The class only: Jackson's message may quote the value.
            return notStored("encoding it as JSON failed with " + MethodJson.failureName(e));
        }
        if (json.length > maxBytes) {
            return notStored("its JSON is " + json.length + " bytes, over the cap of " + maxBytes + " bytes (idem.max-response-bytes)");
        }
        Object copy;
        try {
            copy = returnType(codec).read(json);
        } catch (RuntimeException e) {
            return notStored("its JSON does not read back as " + returnType(codec).canonical() + " (" + MethodJson.failureName(e) + ")");
        }
        return new Stored(StoredResponse.of(200, json), copy);
    }

    private static Stored notStored(String reason) {
        return new Stored(StoredResponse.of(200, Map.of(NOT_STORED, List.of(reason)), new byte[0]), null);
    }

    /** Why the method's return value was not stored, if {@code stored} is a not-stored marker; else null. */
    public static String notStoredReason(StoredResponse stored) {
        List<String> reason = stored.headers().get(NOT_STORED);
        return reason == null || reason.isEmpty() ? null : reason.get(0);
    }

    /** A stored return value read back as the method's generic return type ({@code null} for void). */
    public Object decode(StoredResponse stored, MethodJson json) {
        if (returnsVoid) {
            return null;
        }
        return returnType(json).read(stored.body());
    }

    private MethodJson.ValueType returnType(MethodJson json) {
        MethodJson.ValueType resolved = returnType;
        if (resolved == null) {
            resolved = json.type(method.getGenericReturnType());
            returnType = resolved;
        }
        return resolved;
    }

    @Override
    public String toString() {
        return where + " [scope " + scope + "]";
    }
}
