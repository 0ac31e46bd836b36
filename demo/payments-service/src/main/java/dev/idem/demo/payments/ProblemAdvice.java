package dev.idem.demo.payments;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.ErrorResponse;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Every failure as {@code application/problem+json}: {@link PaymentProblem}s with their status, anything
 * unexpected as 500 (never stored by idem: the key is released, or resumed after a finished phase).
 * Spring MVC's own errors (405, 415, …) are problem+json too ({@code spring.mvc.problemdetails.enabled}).
 */
@RestControllerAdvice
public class ProblemAdvice {
    private static final Logger LOG = LoggerFactory.getLogger(ProblemAdvice.class);

    @ExceptionHandler(PaymentProblem.class)
    public ResponseEntity<ProblemDetail> problem(PaymentProblem problem) {
        ProblemDetail detail = ProblemDetail.forStatusAndDetail(HttpStatus.valueOf(problem.status()), problem.getMessage());
        detail.setType(problem.type());
        detail.setTitle(problem.title());
        if (problem.status() >= 500) {
            LOG.info("payment failed with {} {}: {}", problem.status(), problem.title(), problem.getMessage());
        }
        ResponseEntity.BodyBuilder answer = ResponseEntity.status(problem.status()).contentType(MediaType.APPLICATION_PROBLEM_JSON);
        if (problem.retryAfter() != null) {
            answer.header(HttpHeaders.RETRY_AFTER, Long.toString(Math.max(1, (problem.retryAfter().toMillis() + 999) / 1000)));
        }
        return answer.body(detail);
    }

    @ExceptionHandler(RuntimeException.class)
    public ResponseEntity<ProblemDetail> unexpected(RuntimeException e) {
        if (e instanceof ErrorResponse known) {
            // Spring MVC's own (a path variable of the wrong type, a ResponseStatusException, ...): its status.
            return ResponseEntity.status(known.getStatusCode()).headers(known.getHeaders())
                    .contentType(MediaType.APPLICATION_PROBLEM_JSON).body(known.getBody());
        }
        // The classes only (the exception's and its causes'): messages of lower layers may quote a key or a value.
        LOG.warn("payment failed unexpectedly with {}", classes(e));
        ProblemDetail detail = ProblemDetail.forStatusAndDetail(HttpStatus.INTERNAL_SERVER_ERROR,
                "the payment failed; retry with the same Idempotency-Key");
        detail.setTitle("Internal Server Error");
        return ResponseEntity.status(500).contentType(MediaType.APPLICATION_PROBLEM_JSON).body(detail);
    }

    /** "a.B caused by c.D caused by …": what an operator needs to find the failing layer, without any message. */
    static String classes(Throwable e) {
        StringBuilder chain = new StringBuilder(e.getClass().getName());
        int depth = 0;
        for (Throwable cause = e.getCause(); cause != null && cause != e && depth < 8; cause = cause.getCause(), depth++) {
            chain.append(" caused by ").append(cause.getClass().getName());
        }
        return chain.toString();
    }
}
