package dev.idem.servlet.internal;

import dev.idem.http.HttpAnswer;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** Writes the framework-neutral {@link HttpAnswer}s of {@code dev.idem.http} to a Servlet response. */
public final class ServletAnswers {
    private ServletAnswers() {
    }

    /** Status, header writes in order, then the body (with its length, where the status has content); commits. */
    public static void write(HttpAnswer answer, HttpServletResponse response) throws IOException {
        response.setStatus(answer.status());
        for (HttpAnswer.Header header : answer.headers()) {
            if (header.append()) {
                response.addHeader(header.name(), header.value());
            } else {
                response.setHeader(header.name(), header.value());
            }
        }
        if (answer.hasContent()) {
            byte[] body = answer.body();
            response.setContentLength(body.length);
            if (body.length > 0) {
                response.getOutputStream().write(body);
            }
        }
        response.flushBuffer();
    }
}
