package dev.idem.servlet.internal;

import jakarta.servlet.http.HttpServletRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** How the filter names a request's parts in scopes and fingerprints. */
public final class RequestNames {
    private RequestNames() {
    }

    /**
     * The path within the application: servlet path plus path info, so without the context path,
     * decoded, and without path parameters such as {@code ;jsessionid=…} (which would split one
     * logical request into several scopes). Never empty.
     */
    public static String pathWithinApplication(HttpServletRequest request) {
        String servletPath = request.getServletPath();
        String pathInfo = request.getPathInfo();
        String path = (servletPath == null ? "" : servletPath) + (pathInfo == null ? "" : pathInfo);
        return path.isEmpty() ? "/" : path;
    }

    /**
     * {@code value} itself when it is 1 to {@code maxLength} visible ASCII characters, else
     * {@code sha256:<hex>} of it. Scope parts must be unambiguous (no spaces: the parts are joined by
     * one), free of control characters, and short enough for {@code Scope}'s limit; a digest keeps
     * one identity per distinct value without failing the request.
     */
    public static String scopePart(String value, int maxLength) {
        if (value.isEmpty() || value.length() > maxLength) {
            return "sha256:" + sha256Hex(value);
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x21 || c > 0x7E) {
                return "sha256:" + sha256Hex(value);
            }
        }
        return value;
    }

    public static String sha256Hex(String value) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(sha.digest(value.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JDK", e);
        }
    }
}
