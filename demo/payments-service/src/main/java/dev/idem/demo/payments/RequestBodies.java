package dev.idem.demo.payments;

import jakarta.servlet.http.HttpServletRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;

/** Reads a request body up to a limit (413 past it) and checks that it is JSON (415 otherwise). */
public final class RequestBodies {
    private final int maxBytes;

    public RequestBodies(int maxBytes) {
        this.maxBytes = maxBytes;
    }

    public int maxBytes() {
        return maxBytes;
    }

    /** @throws PaymentProblem 415 for a body that is not JSON, 413 for one over the limit */
    public byte[] readJson(HttpServletRequest request) throws IOException {
        String type = request.getContentType();
        String media = type == null ? "" : type.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
        if (!media.equals("application/json") && !media.endsWith("+json")) {
            throw PaymentProblem.unsupportedMediaType();
        }
        long declared = request.getContentLengthLong();
        if (declared > maxBytes) {
            throw PaymentProblem.tooLarge(maxBytes);
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream((int) Math.max(0, Math.min(declared, maxBytes)));
        byte[] buffer = new byte[8192];
        try (InputStream in = request.getInputStream()) {
            int n;
            while ((n = in.read(buffer)) != -1) {
                if (body.size() + n > maxBytes) {
                    throw PaymentProblem.tooLarge(maxBytes);
                }
                body.write(buffer, 0, n);
            }
        }
        return body.toByteArray();
    }
}
