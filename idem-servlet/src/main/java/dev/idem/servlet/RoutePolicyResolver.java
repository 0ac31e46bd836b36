package dev.idem.servlet;

import jakarta.servlet.http.HttpServletRequest;
import java.util.Objects;

/**
 * Decides, per request, whether the {@link IdempotencyFilter} covers it, whether the key is
 * required, and which {@code Idem} runs it ({@link RoutePolicy}).
 *
 * <p>Called only for requests whose method the filter covers, before the key header or the body is
 * read. It must not read the body, must return non-null, and must be thread-safe. A framework
 * integration typically answers from its handler mapping (an annotation on the endpoint).
 */
@FunctionalInterface
public interface RoutePolicyResolver {

    RoutePolicy resolve(HttpServletRequest request);

    /** The same policy for every request; {@code always(RoutePolicy.required())} is the filter's default. */
    static RoutePolicyResolver always(RoutePolicy policy) {
        Objects.requireNonNull(policy, "policy is null");
        return request -> policy;
    }
}
