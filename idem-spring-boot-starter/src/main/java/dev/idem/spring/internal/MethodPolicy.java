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
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.env.PropertyResolver;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.json.JsonMapper;

/**
 * One {@link IdempotentMethod}, read and checked once: its scope, its key and fingerprint
 * expressions, its engine settings and how its return value is stored. Built when the bean is, so a
 * bad annotation fails startup with a message naming the method.
 */
public final class MethodPolicy {
    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final ParameterNameDiscoverer NAMES = new DefaultParameterNameDiscoverer();
    /** {@code #name} references outside string literals; functions ({@code #f(}) are not variables. */
    private static final Pattern VARIABLE = Pattern.compile("#([A-Za-z_][A-Za-z0-9_]*)(?!\\s*\\()");
    private static final Pattern INDEXED = Pattern.compile("[pa][0-9]+");
    /** The principal part of every method scope: keeps them apart from HTTP scopes ({@code user:…}, {@code credential:…}). */
    private static final String PRINCIPAL = "method";

    private final Method method;
    private final String where;
    private final Scope scope;
    private final String keyText;
    private final Expression key;
    private final List<String> fingerprintTexts;
    private final List<Expression> fingerprint;
    private final EngineVariants.Settings settings;
    private final boolean returnsVoid;
    private volatile Idem engine;
    private volatile JavaType returnType;

    private MethodPolicy(Class<?> type, Method method, IdempotentMethod annotation, EngineVariants variants) {
        this.method = method;
        this.where = "@IdempotentMethod on " + type.getName() + "#" + method.getName();
        refuseAsync(method, where);
        String scopeName = annotation.scope().isBlank() ? type.getName() + "#" + method.getName() : annotation.scope().trim();
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
     * @param type the bean's class (the user class, not a proxy's), for the default scope and messages
     * @throws IllegalStateException naming the method if an expression, a duration or the return type is not usable
     */
    public static MethodPolicy of(Class<?> type, Method method, IdempotentMethod annotation, IdemProperties properties,
                                  PropertyResolver placeholders) {
        return new MethodPolicy(type, method, annotation, new EngineVariants(properties, placeholders));
    }

    private static void refuseAsync(Method method, String where) {
        Class<?> returned = method.getReturnType();
        if (Future.class.isAssignableFrom(returned) || CompletionStage.class.isAssignableFrom(returned)
                || returned.getName().startsWith("org.reactivestreams.") || returned.getName().startsWith("reactor.core.publisher.")) {
            throw new IllegalStateException(where + ": returns " + returned.getName() + ", whose work ends after the method"
                    + " returns; an idempotent method must finish its work before it returns");
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
            current = EngineVariants.variant(application, settings, where);
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

    /** The key of one call. */
    public IdempotencyKey key(Object[] arguments) {
        Object value = key.getValue(context(arguments));
        if (value == null) {
            throw new IllegalArgumentException(where + ": the key expression '" + keyText + "' gave null");
        }
        return IdempotencyKey.of(value.toString());
    }

    /** The fingerprint of one call: each expression's value as JSON. */
    public Fingerprint fingerprint(Object[] arguments, JsonMapper mapper) {
        if (fingerprint.isEmpty()) {
            return Fingerprint.none();
        }
        EvaluationContext context = context(arguments);
        Fingerprint.Builder builder = Fingerprint.builder();
        for (int i = 0; i < fingerprint.size(); i++) {
            builder.part(fingerprintTexts.get(i), mapper.writeValueAsBytes(fingerprint.get(i).getValue(context)));
        }
        return builder.build();
    }

    private EvaluationContext context(Object[] arguments) {
        return new MethodBasedEvaluationContext(null, method, arguments, NAMES);
    }

    /** The stored form of a return value: 200 with its JSON, or 204 for a void method. */
    public StoredResponse encode(Object value, JsonMapper mapper) {
        return returnsVoid ? StoredResponse.of(204, new byte[0]) : StoredResponse.of(200, mapper.writeValueAsBytes(value));
    }

    /** A stored return value read back as the method's generic return type ({@code null} for void). */
    public Object decode(StoredResponse stored, JsonMapper mapper) {
        if (returnsVoid) {
            return null;
        }
        JavaType type = returnType;
        if (type == null) {
            type = mapper.getTypeFactory().constructType(method.getGenericReturnType());
            returnType = type;
        }
        return mapper.readValue(stored.body(), type);
    }

    @Override
    public String toString() {
        return where + " [scope " + scope + "]";
    }
}
