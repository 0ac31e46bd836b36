package dev.idem.jakarta.rest.internal;

import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.container.ResourceInfo;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashSet;
import java.util.Set;

/**
 * The route template of a resource method ({@code /orders/{id}}), read from its classes once, when the
 * runtime binds the method's filters: the scope names it (as the Spring starter names a handler's URL
 * pattern), so that the meters' {@code operation} tag has one value per route, not one per path
 * parameter's value. Only portable Jakarta REST: {@code ResourceInfo} and the {@code @Path} annotations.
 */
public final class RouteTemplates {
    private RouteTemplates() {
    }

    /**
     * The class's {@code @Path} and the method's joined: one leading {@code /}, no trailing or doubled
     * ones, and each parameter without its regular expression ({@code {id: [0-9]+}} is {@code {id}}).
     * Null when the classes cannot tell it: a method of a sub-resource (its class has no {@code @Path}:
     * a locator's path leads to it, and which locator is known only per request), or no method.
     */
    public static String of(ResourceInfo resource) {
        Class<?> type = resource.getResourceClass();
        Method method = resource.getResourceMethod();
        if (type == null || method == null) {
            return null;
        }
        Path classPath = classPath(type);
        if (classPath == null) {
            return null;
        }
        Path methodPath = methodPath(type, method);
        return normalise(classPath.value() + "/" + (methodPath == null ? "" : methodPath.value()));
    }

    /** The {@code @Path} of {@code type} or of the nearest supertype with one (a proxy's superclass, an interface). */
    private static Path classPath(Class<?> type) {
        Deque<Class<?>> pending = new ArrayDeque<>();
        Set<Class<?>> seen = new HashSet<>();
        pending.add(type);
        while (!pending.isEmpty()) {
            Class<?> next = pending.removeFirst();
            if (next == Object.class || !seen.add(next)) {
                continue;
            }
            Path path = next.getAnnotation(Path.class);
            if (path != null) {
                return path;
            }
            if (next.getSuperclass() != null) {
                pending.add(next.getSuperclass());
            }
            pending.addAll(Arrays.asList(next.getInterfaces()));
        }
        return null;
    }

    /**
     * The method's {@code @Path}. Jakarta REST's inheritance rule: a method without Jakarta REST
     * annotations of its own takes those of the method it overrides or implements.
     */
    private static Path methodPath(Class<?> type, Method method) {
        if (ownsAnnotations(method)) {
            return method.getAnnotation(Path.class);
        }
        Deque<Class<?>> pending = new ArrayDeque<>();
        Set<Class<?>> seen = new HashSet<>();
        pending.add(type);
        pending.add(method.getDeclaringClass());
        while (!pending.isEmpty()) {
            Class<?> next = pending.removeFirst();
            if (next == Object.class || !seen.add(next)) {
                continue;
            }
            try {
                Method candidate = next.getDeclaredMethod(method.getName(), method.getParameterTypes());
                if (ownsAnnotations(candidate)) {
                    return candidate.getAnnotation(Path.class);
                }
            } catch (NoSuchMethodException e) {
                // not declared here: its supertypes may
            }
            if (next.getSuperclass() != null) {
                pending.add(next.getSuperclass());
            }
            pending.addAll(Arrays.asList(next.getInterfaces()));
        }
        return null;
    }

    private static boolean ownsAnnotations(Method method) {
        if (method.isAnnotationPresent(Path.class)) {
            return true;
        }
        for (Annotation annotation : method.getAnnotations()) {
            if (annotation.annotationType().isAnnotationPresent(HttpMethod.class)) {
                return true;
            }
        }
        return false;
    }

    /** {@code path} with one leading slash, none trailing or doubled, and its parameters' regular expressions left out. */
    static String normalise(String path) {
        StringBuilder out = new StringBuilder(path.length() + 1);
        int i = 0;
        while (i < path.length()) {
            char c = path.charAt(i);
            if (c == '/') {
                i++;
                continue;
            }
            out.append('/');
            while (i < path.length() && path.charAt(i) != '/') {
                if (path.charAt(i) == '{') {
                    i = parameter(path, i, out);
                } else {
                    out.append(path.charAt(i++));
                }
            }
        }
        return out.length() == 0 ? "/" : out.toString();
    }

    /** Appends {@code {name}} of the parameter opening at {@code open}; returns the index after its closing brace. */
    private static int parameter(String path, int open, StringBuilder out) {
        int depth = 0;
        int colon = -1;
        int i = open;
        for (; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c == '{') {
                depth++;
            } else if (c == '}' && --depth == 0) {
                break;
            } else if (c == ':' && depth == 1 && colon < 0) {
                colon = i;
            }
        }
        if (i == path.length()) { // unbalanced: not a template the runtime would accept; kept as written
            out.append(path, open, i);
            return i;
        }
        out.append('{').append(path.substring(open + 1, colon < 0 ? i : colon).trim()).append('}');
        return i + 1;
    }
}
