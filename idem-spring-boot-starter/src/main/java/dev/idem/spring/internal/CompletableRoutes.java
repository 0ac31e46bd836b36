package dev.idem.spring.internal;

import dev.idem.Idem;
import dev.idem.OperationRegistry;
import dev.idem.http.StoredRequest;
import dev.idem.servlet.ServletCompletion;
import dev.idem.spring.Idempotent;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.stereotype.Controller;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.handler.AbstractHandlerMethodMapping;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;

/**
 * The Spring MVC handler methods annotated {@code @Idempotent(completable = true)}: each one's
 * operation name (explicit, or {@code http:<METHOD>:<pattern>}), checked once, and the
 * {@link OperationRegistry} that runs them all — each name as a {@link ServletCompletion} of the
 * application's {@code DispatcherServlet}. Found from the handler mappings on first use (when the
 * filter's policies are decided, or the completer starts), then fixed.
 */
public final class CompletableRoutes implements ApplicationContextAware {
    private static final int MAX_NAME = 64;
    private static final int HASH_CHARS = 8;

    private final Idem engine;
    private ApplicationContext context;
    private volatile Found found;

    /** @param engine the engine the filter runs routes on: its response cap is the completion's */
    public CompletableRoutes(Idem engine) {
        this.engine = Objects.requireNonNull(engine, "engine is null");
    }

    private record HandlerKey(Class<?> type, Method method) {
    }

    private record Found(Map<HandlerKey, String> names, OperationRegistry registry) {
    }

    @Override
    public void setApplicationContext(ApplicationContext context) {
        this.context = context;
    }

    /** Whether any handler is completable. */
    public boolean any() {
        return found().registry() != null;
    }

    /** The registry of every completable route's operation; empty when no route is completable. */
    public Optional<OperationRegistry> registry() {
        return Optional.ofNullable(found().registry());
    }

    /**
     * The operation name of a completable handler method.
     *
     * @throws IllegalStateException if no handler mapping maps it
     */
    public String operationName(Class<?> type, Method method) {
        String name = found().names().get(new HandlerKey(type, method));
        if (name == null) {
            throw new IllegalStateException("@Idempotent(completable = true) on " + type.getName() + "#" + method.getName()
                    + ": no Spring MVC handler mapping maps it, so there is no route to complete");
        }
        return name;
    }

    private Found found() {
        Found loaded = found;
        if (loaded == null) {
            synchronized (this) {
                loaded = found;
                if (loaded == null) {
                    loaded = scan();
                    found = loaded;
                }
            }
        }
        return loaded;
    }

    private Found scan() {
        if (context == null) {
            return new Found(Map.of(), null);
        }
        List<HandlerMapping> mappings = new ArrayList<>(
                BeanFactoryUtils.beansOfTypeIncludingAncestors(context, HandlerMapping.class, true, false).values());
        AnnotationAwareOrderComparator.sort(mappings);
        Map<HandlerKey, String> names = new LinkedHashMap<>();
        Map<String, String> handlerOfName = new LinkedHashMap<>();
        for (HandlerMapping mapping : mappings) {
            if (!(mapping instanceof AbstractHandlerMethodMapping<?> methods)) {
                continue;
            }
            methods.getHandlerMethods().forEach((info, handler) -> {
                Idempotent annotation = EndpointPolicies.annotationOf(handler.getBeanType(), handler.getMethod());
                if (annotation == null || !annotation.completable()) {
                    return;
                }
                Set<String> httpMethods = HandlerMappingRoutePolicyResolver.httpMethods(info);
                if (!httpMethods.isEmpty() && EndpointPolicies.SAFE_METHODS.containsAll(httpMethods)) {
                    return; // a class-level annotation's GET handlers: never covered, nothing to complete
                }
                String where = where(handler);
                String name = annotation.operation().isEmpty() ? derivedName(info, where) : annotation.operation();
                HandlerKey key = new HandlerKey(handler.getBeanType(), handler.getMethod());
                String earlier = handlerOfName.putIfAbsent(name, where);
                if (earlier != null && !earlier.equals(where)) {
                    throw new IllegalStateException("@Idempotent(completable = true) on " + where + ": operation '" + name
                            + "' is also " + earlier + "'s; give each completable handler its own (operation = \"...\")");
                }
                names.put(key, name);
            });
        }
        if (names.isEmpty()) {
            return new Found(Map.of(), null);
        }
        ServletCompletion completion = ServletCompletion.of(dispatcherServlet(), engine.maxResponseBytes());
        OperationRegistry.Builder registry = OperationRegistry.builder();
        for (Map.Entry<String, String> name : handlerOfName.entrySet()) {
            try {
                registry.register(name.getKey(), StoredRequest.CODEC, completion);
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("@Idempotent(completable = true) on " + name.getValue() + ": " + e.getMessage()
                        + "; name it with operation = \"...\""); // the rule's message is all there is to it
            }
        }
        return new Found(Map.copyOf(names), registry.build());
    }

    private DispatcherServlet dispatcherServlet() {
        DispatcherServlet servlet = context.getBeanProvider(DispatcherServlet.class).getIfUnique();
        if (servlet == null) {
            throw new IllegalStateException("@Idempotent(completable = true) needs the application's one DispatcherServlet bean,"
                    + " to run stored requests through; found none or several");
        }
        return servlet;
    }

    private static String where(HandlerMethod handler) {
        return handler.getBeanType().getName() + "#" + handler.getMethod().getName();
    }

    /** {@code http:<METHOD>:<pattern>}, cut to 64 characters with a hash of the whole when longer. */
    private static String derivedName(Object info, String where) {
        Set<String> methods = HandlerMappingRoutePolicyResolver.httpMethods(info);
        Set<String> patterns = new LinkedHashSet<>();
        if (info instanceof RequestMappingInfo mapping) {
            patterns.addAll(mapping.getPatternValues());
        }
        if (methods.size() != 1 || patterns.size() != 1) {
            throw new IllegalStateException("@Idempotent(completable = true) on " + where + ": its mapping names " + methods.size()
                    + " HTTP methods and " + patterns.size() + " paths, so no operation name can be derived from it;"
                    + " map it to one method and one path, or name it with operation = \"...\"");
        }
        String name = "http:" + methods.iterator().next() + ":" + patterns.iterator().next();
        if (name.length() <= MAX_NAME) {
            return name;
        }
        return name.substring(0, MAX_NAME - HASH_CHARS - 1) + "~" + sha256Hex(name).substring(0, HASH_CHARS);
    }

    private static String sha256Hex(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /**
     * Whether any controller bean of {@code beanFactory} has a completable handler method, judged from
     * the bean types alone (no bean is created): early, before the handler mappings exist, so that the
     * {@code DispatcherServlet} can be loaded on startup for the completer.
     */
    public static boolean anyDeclared(ConfigurableListableBeanFactory beanFactory) {
        for (String name : beanFactory.getBeanDefinitionNames()) {
            Class<?> type;
            try {
                type = beanFactory.getType(name, false);
            } catch (RuntimeException unknown) {
                continue;
            }
            if (type != null && declaresCompletable(ClassUtils.getUserClass(type))) {
                return true;
            }
        }
        return false;
    }

    private static boolean declaresCompletable(Class<?> type) {
        if (!AnnotatedElementUtils.hasAnnotation(type, Controller.class)) {
            return false;
        }
        boolean[] any = {false};
        ReflectionUtils.doWithMethods(type, method -> {
            Idempotent annotation = EndpointPolicies.annotationOf(type, method);
            if (annotation != null && annotation.completable()) {
                any[0] = true;
            }
        }, method -> !any[0] && !method.isSynthetic() && method.getDeclaringClass() != Object.class);
        return any[0];
    }
}
