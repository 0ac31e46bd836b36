package dev.idem.spring.internal;

import dev.idem.servlet.RoutePolicy;
import dev.idem.servlet.RoutePolicyResolver;
import dev.idem.spring.IdemRoutes;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerExecutionChain;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.servlet.function.HandlerFunction;
import org.springframework.web.servlet.handler.AbstractHandlerMethodMapping;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.util.ServletRequestPathUtils;

/**
 * Finds the Spring MVC handler a request will reach, the way the {@code DispatcherServlet} does (its
 * {@link HandlerMapping} beans in order), and answers with that handler's {@link EndpointPolicies
 * policy}. The lookup runs on a wrapper that keeps every request attribute the mappings set
 * (matched pattern, path variables, parsed path) to itself, so the real request reaches the
 * {@code DispatcherServlet} as it came. For a covered request the handler's URL pattern is put in
 * {@link IdemRoutes#ROUTE_ATTRIBUTE} for the scope.
 *
 * <p>A request no mapping matches, or whose lookup fails (wrong method, media type: the
 * {@code DispatcherServlet} answers 404, 405, 415 itself), is not covered.
 */
public final class HandlerMappingRoutePolicyResolver implements RoutePolicyResolver, ApplicationContextAware, SmartInitializingSingleton {
    private final EndpointPolicies policies;
    private ApplicationContext context;
    private volatile List<HandlerMapping> mappings;

    public HandlerMappingRoutePolicyResolver(EndpointPolicies policies) {
        this.policies = Objects.requireNonNull(policies, "policies is null");
    }

    @Override
    public void setApplicationContext(ApplicationContext context) {
        this.context = context;
    }

    /**
     * Loads the handler mappings and checks every annotated handler method, so a bad annotation
     * (a value that does not parse, {@code @Idempotent} on a GET handler) fails startup.
     */
    @Override
    public void afterSingletonsInstantiated() {
        for (HandlerMapping mapping : mappings()) {
            if (mapping instanceof AbstractHandlerMethodMapping<?> methods) {
                methods.getHandlerMethods().forEach((info, handler) -> {
                    policies.forMethod(handler);
                    policies.check(handler, httpMethods(info));
                });
            }
        }
    }

    /** The HTTP methods a mapping declares; empty when it takes any (or is not a {@code RequestMappingInfo}). */
    static Set<String> httpMethods(Object mappingInfo) {
        Set<String> names = new LinkedHashSet<>();
        if (mappingInfo instanceof RequestMappingInfo info) {
            for (RequestMethod method : info.getMethodsCondition().getMethods()) {
                names.add(method.name());
            }
        }
        return names;
    }

    @Override
    public RoutePolicy resolve(HttpServletRequest request) {
        LocalAttributesRequest lookup = new LocalAttributesRequest(request);
        ServletRequestPathUtils.parseAndCache(lookup);
        for (HandlerMapping mapping : mappings()) {
            HandlerExecutionChain chain;
            try {
                chain = mapping.getHandler(lookup);
            } catch (Exception e) {
                return RoutePolicy.notCovered(); // 405, 415, ...: the DispatcherServlet answers it
            }
            if (chain == null) {
                continue;
            }
            Object handler = chain.getHandler();
            RoutePolicy policy = policies.forRequest(handler, handler instanceof HandlerFunction<?>, request.getMethod());
            Object pattern = lookup.localAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE);
            if (policy.covered() && pattern != null) {
                request.setAttribute(IdemRoutes.ROUTE_ATTRIBUTE, pattern.toString());
            }
            return policy;
        }
        return RoutePolicy.notCovered();
    }

    private List<HandlerMapping> mappings() {
        List<HandlerMapping> loaded = mappings;
        if (loaded == null) {
            if (context == null) {
                return List.of();
            }
            List<HandlerMapping> found = new ArrayList<>(
                    BeanFactoryUtils.beansOfTypeIncludingAncestors(context, HandlerMapping.class, true, false).values());
            AnnotationAwareOrderComparator.sort(found);
            loaded = List.copyOf(found);
            mappings = loaded;
        }
        return loaded;
    }

    @Override
    public String toString() {
        return "HandlerMappingRoutePolicyResolver[@Idempotent]";
    }

    /** Reads fall through to the real request; writes and removals stay in this wrapper. */
    static final class LocalAttributesRequest extends HttpServletRequestWrapper {
        private final Map<String, Object> local = new HashMap<>();
        private final Set<String> removed = new HashSet<>();

        LocalAttributesRequest(HttpServletRequest request) {
            super(request);
        }

        Object localAttribute(String name) {
            return local.get(name);
        }

        @Override
        public Object getAttribute(String name) {
            if (local.containsKey(name)) {
                return local.get(name);
            }
            return removed.contains(name) ? null : super.getAttribute(name);
        }

        @Override
        public Enumeration<String> getAttributeNames() {
            Set<String> names = new LinkedHashSet<>(Collections.list(super.getAttributeNames()));
            names.removeAll(removed);
            names.addAll(local.keySet());
            return Collections.enumeration(names);
        }

        @Override
        public void setAttribute(String name, Object value) {
            if (value == null) {
                removeAttribute(name);
                return;
            }
            local.put(name, value);
            removed.remove(name);
        }

        @Override
        public void removeAttribute(String name) {
            local.remove(name);
            removed.add(name);
        }
    }
}
