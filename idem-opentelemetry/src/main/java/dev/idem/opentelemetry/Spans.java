package dev.idem.opentelemetry;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;

/** Runs work inside a started span: current while it runs, an error by its exception's class, ended after. */
final class Spans {
    private Spans() {
    }

    /** The work a span is around. */
    @FunctionalInterface
    interface Call<T, E extends Throwable> {
        T run() throws E;
    }

    /**
     * Runs {@code work} with {@code span} current and ends the span. An exception marks the span as an
     * error with the exception's class only (its message is the application's and may quote data), and
     * goes through unchanged.
     */
    static <T, E extends Throwable> T within(Span span, Call<T, E> work) throws E {
        try (Scope ignored = span.makeCurrent()) {
            return work.run();
        } catch (Throwable e) {
            span.setStatus(StatusCode.ERROR, e.getClass().getName());
            throw e;
        } finally {
            span.end();
        }
    }
}
