package dev.idem.demo.payments;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.io.PrintWriter;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * {@code --crash-at=before-response-written}: registered outside idem's filter only when that point is
 * armed. It halts the process when a successful answer to {@code POST /payments} with a key is about to
 * be written to the connection — after idem stored it, before a byte of it leaves.
 */
final class CrashBeforeResponseFilter extends OncePerRequestFilter {
    private final CrashPoints crashes;

    CrashBeforeResponseFilter(CrashPoints crashes) {
        this.crashes = crashes;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        boolean watched = "POST".equals(request.getMethod()) && "/payments".equals(request.getRequestURI())
                && request.getHeader("Idempotency-Key") != null;
        chain.doFilter(request, watched ? new Watching(response) : response);
    }

    private final class Watching extends HttpServletResponseWrapper {
        Watching(HttpServletResponse response) {
            super(response);
        }

        private void aboutToWrite() {
            int status = getStatus();
            if (status >= 200 && status < 300) {
                crashes.reach(CrashPoint.BEFORE_RESPONSE_WRITTEN);
            }
        }

        @Override
        public ServletOutputStream getOutputStream() throws IOException {
            aboutToWrite();
            return super.getOutputStream();
        }

        @Override
        public PrintWriter getWriter() throws IOException {
            aboutToWrite();
            return super.getWriter();
        }

        @Override
        public void flushBuffer() throws IOException {
            aboutToWrite();
            super.flushBuffer();
        }
    }
}
