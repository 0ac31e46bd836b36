package dev.idem.spring.internal;

import dev.idem.spring.IdemProperties;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.util.ClassUtils;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * Warns once at start when idem's covered routes will all share the {@code anonymous} scope: the
 * starter's scope resolver reads the user principal, and nothing sets one (no Spring Security, no
 * {@code idem.scope.credential-header}), as behind a gateway that authenticates. Every caller then
 * shares one key space, and two callers that send the same key get one answer.
 */
public final class AnonymousScopeWarning implements SmartInitializingSingleton, ApplicationContextAware {
    private static final List<String> ANNOTATED_METHODS = List.of("POST", "PUT", "PATCH", "DELETE");
    /** The bean the starter's own scope resolver is registered as; an application's own resolver replaces it. */
    public static final String STARTER_SCOPE_RESOLVER = "idemScopeResolver";

    private static final Log log = LogFactory.getLog(AnonymousScopeWarning.class);

    private final IdemProperties properties;
    private ApplicationContext context;

    public AnonymousScopeWarning(IdemProperties properties) {
        this.properties = properties;
    }

    @Override
    public void setApplicationContext(ApplicationContext context) {
        this.context = context;
    }

    @Override
    public void afterSingletonsInstantiated() {
        if (!noPrincipalReachesIdem()) {
            return;
        }
        List<String> routes = anonymousRoutes();
        if (!routes.isEmpty()) {
            log.warn(message(routes));
        }
    }

    /** The warning's text: the routes, why they share a scope, and what to set. */
    static String message(List<String> routes) {
        return "idem: " + routes.size() + (routes.size() == 1 ? " covered route resolves" : " covered routes resolve")
                + " to the shared 'anonymous' scope, because no principal reaches idem (no Spring Security on the class path and"
                + " idem.scope.credential-header is not set): " + String.join(", ", routes) + ". All callers of these routes"
                + " share one key space, and two callers that send the same Idempotency-Key get one answer. Behind a gateway that"
                + " authenticates, set idem.scope.credential-header to the header that carries the caller's credential (for"
                + " example Authorization or X-Api-Key), or define a ScopeResolver bean; if one caller uses these routes, ignore this.";
    }

    private boolean noPrincipalReachesIdem() {
        String header = properties.getScope().getCredentialHeader();
        return (header == null || header.isEmpty())
                && context.containsBeanDefinition(STARTER_SCOPE_RESOLVER)
                && !ClassUtils.isPresent("org.springframework.security.web.SecurityFilterChain", context.getClassLoader());
    }

    /** "POST /orders" for each covered method and pattern of the application's handler methods, sorted. */
    private List<String> anonymousRoutes() {
        Set<String> routes = new TreeSet<>();
        for (RequestMappingHandlerMapping mapping : context.getBeansOfType(RequestMappingHandlerMapping.class).values()) {
            mapping.getHandlerMethods().forEach((info, handler) -> routes.addAll(coveredRoutes(info, handler)));
        }
        return new ArrayList<>(routes);
    }

    private List<String> coveredRoutes(RequestMappingInfo info, HandlerMethod handler) {
        boolean annotated = EndpointPolicies.annotationOf(handler.getBeanType(), handler.getMethod()) != null;
        List<String> routes = new ArrayList<>();
        if (!annotated && properties.getDefaultPolicy() != IdemProperties.DefaultPolicy.ALL) {
            return routes;
        }
        // An @Idempotent covers its handler for every unsafe method; the default policy only idem.methods.
        List<String> coveredMethods = annotated ? ANNOTATED_METHODS : properties.getMethods();
        Set<RequestMethod> mapped = info.getMethodsCondition().getMethods();
        for (String method : coveredMethods) {
            String upper = method.toUpperCase(Locale.ROOT);
            if (mapped.isEmpty() || mapped.stream().anyMatch(m -> m.name().equals(upper))) {
                info.getPatternValues().forEach(pattern -> routes.add(upper + " " + pattern));
            }
        }
        return routes;
    }
}
