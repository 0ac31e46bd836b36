package dev.idem.jakarta.rest.internal;

import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.Scope;
import dev.idem.Start;
import dev.idem.http.HttpAnswer;
import dev.idem.http.HttpAnswers;
import dev.idem.http.MalformedBodyException;
import dev.idem.http.RequestBodies;
import dev.idem.http.RequestFingerprints;
import dev.idem.jakarta.rest.ScopeResolver;
import jakarta.annotation.Priority;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.WriterInterceptor;
import jakarta.ws.rs.ext.WriterInterceptorContext;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The filters of one {@code @Idempotent} resource method: the request filter claims the key (or
 * answers), the {@linkplain #responseFilter() response filter} captures status and headers, the writer
 * interceptor the serialized entity, and whichever sees the response whole completes the execution. Every answer comes from
 * {@link HttpAnswers}, every fingerprint from {@link RequestFingerprints}.
 */
public final class IdempotencyFilter implements ContainerRequestFilter, WriterInterceptor {
    /**
     * Below every one of {@link jakarta.ws.rs.Priorities}' constants (1000 and up): response filters run in
     * descending priority, so this one runs last. Not {@code Integer.MIN_VALUE}: a runtime may compare
     * priorities by subtraction.
     */
    public static final int RESPONSE_FILTER_PRIORITY = 0;
    public static final String EXECUTION_PROPERTY = "dev.idem.jakarta.rest.execution";
    public static final String ROUTE_PROPERTY = "dev.idem.jakarta.rest.route";
    private static final String EXCHANGE_PROPERTY = IdempotencyFilter.class.getName() + ".exchange";

    /** What every covered method shares; the feature's settings. */
    public record Settings(Idem idem, String headerName, int maxRequestBytes, ScopeResolver scopes, Duration failureRetryAfter) {
        public Settings {
            Objects.requireNonNull(idem, "idem is null");
            Objects.requireNonNull(headerName, "headerName is null");
            Objects.requireNonNull(scopes, "scopeResolver is null");
            Objects.requireNonNull(failureRetryAfter, "failureRetryAfter is null");
        }

        @Override
        public String toString() {
            return "header=" + headerName + ", maxRequestBytes=" + maxRequestBytes + ", maxResponseBytes=" + idem.maxResponseBytes()
                    + ", " + idem.storagePolicy() + ", failureRetryAfter=" + failureRetryAfter + ", " + idem;
        }
    }

    private final Settings settings;
    private final boolean keyRequired;
    /** The method's route template ({@link RouteTemplates}), or null when its classes cannot tell it. */
    private final String route;
    private final HttpAnswers answers;

    public IdempotencyFilter(Settings settings, boolean keyRequired, String route) {
        this.settings = settings;
        this.keyRequired = keyRequired;
        this.route = route;
        this.answers = new HttpAnswers(settings.headerName(), settings.failureRetryAfter());
    }

    Settings settings() {
        return settings;
    }

    // ---- request ------------------------------------------------------------------------------

    @Override
    public void filter(ContainerRequestContext request) throws IOException {
        List<String> keyValues = request.getHeaders().get(settings.headerName());
        HttpAnswers.KeyHeader keyHeader = answers.key(keyValues == null ? List.of() : keyValues);
        if (keyHeader instanceof HttpAnswers.KeyHeader.Refused refused) {
            request.abortWith(response(refused.answer()));
            return;
        }
        if (!(keyHeader instanceof HttpAnswers.KeyHeader.Valid valid)) {
            if (keyRequired) {
                request.abortWith(response(answers.keyMissing()));
            }
            return;
        }
        byte[] body = RequestBodies.readBounded(request.getEntityStream(), settings.maxRequestBytes(), request.getLength());
        if (body == null) {
            request.abortWith(response(answers.requestTooLarge(settings.maxRequestBytes())));
            return;
        }
        request.setEntityStream(new ByteArrayInputStream(body)); // the resource reads what was fingerprinted
        Fingerprint fingerprint;
        try {
            fingerprint = fingerprint(request, body);
        } catch (MalformedBodyException e) {
            request.abortWith(response(answers.malformedJson(e.getMessage())));
            return;
        }
        if (route != null) {
            request.setProperty(ROUTE_PROPERTY, route); // what ScopeResolver.route reads
        }
        Scope scope = Objects.requireNonNull(settings.scopes().resolve(request), "the ScopeResolver returned null");
        Start start;
        try {
            start = settings.idem().start(scope, valid.key(), fingerprint);
        } catch (RuntimeException e) {
            request.abortWith(response(advertised(answers.failure(e, false).orElseThrow(() -> e), settings)));
            return;
        }
        if (start instanceof Start.Answered answered) {
            request.abortWith(response(advertised(answers.answer(answered.outcome()), settings)));
            return;
        }
        Exchange exchange = new Exchange(((Start.Owned) start).execution());
        request.setProperty(EXCHANGE_PROPERTY, exchange);
        request.setProperty(EXECUTION_PROPERTY, exchange.execution);
        Exchange.CURRENT.set(exchange);
    }

    private static Fingerprint fingerprint(ContainerRequestContext request, byte[] body) {
        String mediaType = RequestFingerprints.mediaType(request.getHeaderString(HttpHeaders.CONTENT_TYPE));
        return RequestFingerprints.fingerprint(request.getMethod(), ScopeResolver.path(request),
                request.getUriInfo().getRequestUri().getRawQuery(), mediaType, RequestFingerprints.canonicalBody(mediaType, body));
    }

    // ---- response -----------------------------------------------------------------------------

    /**
     * The response filter of every covered method: one component, registered by the feature for the
     * whole application (it acts only on requests a request filter claimed) at
     * {@link #RESPONSE_FILTER_PRIORITY}, so it runs after the application's response filters on every
     * runtime (runtimes differ in how they order a method's own filters among the application's).
     * What is stored is then the response as those filters left it (an entity they dropped, headers
     * they added), and an entity they drop cannot leave the execution waiting for a writer that never
     * runs.
     */
    public static ContainerResponseFilter responseFilter(Settings settings) {
        return new ResponseFilter(settings, new HttpAnswers(settings.headerName(), settings.failureRetryAfter()));
    }

    /** The priority is also on the class: Jersey orders response filters by the annotation, not the registration's. */
    @Priority(RESPONSE_FILTER_PRIORITY)
    private record ResponseFilter(Settings settings, HttpAnswers answers) implements ContainerResponseFilter {
        @Override
        public void filter(ContainerRequestContext request, ContainerResponseContext response) {
            IdempotencyFilter.filter(settings, answers, request, response);
        }
    }

    private static void filter(Settings settings, HttpAnswers answers, ContainerRequestContext request, ContainerResponseContext response) {
        Exchange exchange = exchange(request.getProperty(EXCHANGE_PROPERTY));
        if (exchange == null) {
            return;
        }
        Exchange.CURRENT.remove();
        request.removeProperty(EXECUTION_PROPERTY);
        MultivaluedMap<String, String> headers = response.getStringHeaders();
        exchange.storageDeclined = "no".equalsIgnoreCase(response.getHeaderString(HttpAnswers.STORE_HEADER));
        response.getHeaders().remove(HttpAnswers.STORE_HEADER); // neither the client nor the store sees it
        exchange.status = response.getStatus();
        exchange.headers = storedHeaders(headers);
        // Sent, never stored: the key's lifetime, on the resource's own response too.
        HttpAnswer.Header retention = HttpAnswers.retentionHeader(settings.idem().retention());
        response.getHeaders().putSingle(retention.name(), retention.value());
        if (response.hasEntity()) {
            exchange.awaitingEntity = true; // the writer interceptor completes, with the entity as written
            return;
        }
        try {
            exchange.complete(new byte[0]);
        } catch (RuntimeException e) {
            HttpAnswer answer = advertised(answers.failure(e, true).orElseThrow(() -> e), settings);
            response.getHeaders().clear();
            Response replacement = response(answer);
            response.setStatus(replacement.getStatus());
            replacement.getHeaders().forEach((name, values) -> response.getHeaders().addAll(name, values));
            response.setEntity(replacement.getEntity());
        }
    }

    private static Map<String, List<String>> storedHeaders(MultivaluedMap<String, String> headers) {
        Map<String, List<String>> stored = new LinkedHashMap<>();
        headers.forEach((name, values) -> {
            if (HttpAnswers.storesHeader(name) && values != null && !values.isEmpty()) {
                stored.put(name, new ArrayList<>(values));
            }
        });
        return stored;
    }

    @Override
    public void aroundWriteTo(WriterInterceptorContext context) throws IOException {
        Exchange exchange = exchange(context.getProperty(EXCHANGE_PROPERTY));
        if (exchange == null || !exchange.awaitingEntity || exchange.ended()) {
            context.proceed();
            return;
        }
        if (exchange.headers.keySet().stream().noneMatch(HttpHeaders.CONTENT_TYPE::equalsIgnoreCase) && context.getMediaType() != null) {
            exchange.headers.put(HttpHeaders.CONTENT_TYPE, List.of(context.getMediaType().toString()));
        }
        OutputStream client = context.getOutputStream();
        CapturingStream capture = new CapturingStream(client, settings.idem().maxResponseBytes());
        context.setOutputStream(capture);
        try {
            context.proceed();
        } catch (IOException | RuntimeException e) {
            if (capture.clientFailed()) {
                // The client went away while an answer over the cap streamed to it. The resource ran and its
                // answer was whole: stored (without its body, being over the cap) so the retry replays it.
                try {
                    exchange.complete(capture.captured());
                } catch (RuntimeException storeFailure) {
                    e.addSuppressed(storeFailure); // the lease stays: a retry after it takes over and resumes
                }
            } else {
                exchange.fail(e); // the entity did not serialize: no whole response to store
            }
            throw e;
        }
        try {
            exchange.complete(capture.captured());
        } catch (RuntimeException e) {
            if (capture.passedThrough()) {
                throw e; // the client has the response already
            }
            // Nothing was sent yet: the runtime answers the failure's response instead of the resource's.
            throw new WebApplicationException(e, response(advertised(answers.failure(e, true).orElseThrow(() -> e), settings)));
        }
        capture.release(); // stored: now the client gets it
    }

    /** {@code answer} with the key's lifetime: on every answer to a covered request that reached the engine. */
    private static HttpAnswer advertised(HttpAnswer answer, Settings settings) {
        return HttpAnswers.advertisingRetention(answer, settings.idem().retention());
    }

    private static Exchange exchange(Object property) {
        return property instanceof Exchange exchange ? exchange : null;
    }

    // ---- answers ------------------------------------------------------------------------------

    /** {@code answer} as a response: its headers in order (a set replacing earlier values), then its body. */
    static Response response(HttpAnswer answer) {
        Response.ResponseBuilder builder = Response.status(answer.status());
        Map<String, Boolean> seen = new LinkedHashMap<>();
        for (HttpAnswer.Header header : answer.headers()) {
            if (!header.append() && seen.containsKey(header.name().toLowerCase(java.util.Locale.ROOT))) {
                builder.header(header.name(), null);
            }
            seen.put(header.name().toLowerCase(java.util.Locale.ROOT), true);
            builder.header(header.name(), header.value());
        }
        if (answer.hasContent()) {
            builder.entity(answer.body());
        }
        return builder.build();
    }
}
