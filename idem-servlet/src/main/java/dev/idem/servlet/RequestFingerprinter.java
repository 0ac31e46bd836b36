package dev.idem.servlet;

import dev.idem.Fingerprint;
import dev.idem.http.MalformedBodyException;
import dev.idem.http.RequestFingerprints;
import dev.idem.servlet.internal.RequestNames;
import jakarta.servlet.http.HttpServletRequest;

/**
 * The identity of a request, as a {@link Fingerprint}: a retry of the same request must produce the
 * same one, and the same key with another fingerprint is answered 422.
 *
 * <p>The default is {@link RequestFingerprints}' (the one fingerprint of every idem HTTP filter),
 * with the path within the application (without the context path). A JSON body that is not
 * well-formed raises {@link MalformedBodyException}, which the filter answers with 400
 * ({@code urn:idem:problem:malformed-json}) before anything runs or is stored.
 *
 * <p>Replaceable: subclass and override {@link #fingerprint} or {@link #canonicalBody}, and pass the
 * instance to {@link IdempotencyFilter.Builder#fingerprinter}. Instances must be thread-safe.
 * Changing the fingerprint of a deployed service turns in-flight retries into mismatches until their
 * records expire.
 */
public class RequestFingerprinter {

    /** The default fingerprinter. */
    public RequestFingerprinter() {
    }

    /**
     * The fingerprint of {@code request} with its buffered {@code body}.
     *
     * @throws MalformedBodyException if the body does not parse as its content type requires
     */
    public Fingerprint fingerprint(HttpServletRequest request, byte[] body) {
        String mediaType = RequestFingerprints.mediaType(request.getContentType());
        return RequestFingerprints.fingerprint(request.getMethod(), RequestNames.pathWithinApplication(request),
                request.getQueryString(), mediaType, canonicalBody(mediaType, body));
    }

    /**
     * The bytes of {@code body} that identify it: {@link RequestFingerprints#canonicalBody} unless
     * overridden.
     *
     * @param mediaType lower-case, without parameters; "" when the request has no Content-Type
     * @throws MalformedBodyException if a JSON body is not well-formed
     */
    protected byte[] canonicalBody(String mediaType, byte[] body) {
        return RequestFingerprints.canonicalBody(mediaType, body);
    }

    /** True for {@code application/json} and structured-syntax {@code +json} types (RFC 6839). */
    protected static boolean isJson(String mediaType) {
        return RequestFingerprints.isJson(mediaType);
    }
}
