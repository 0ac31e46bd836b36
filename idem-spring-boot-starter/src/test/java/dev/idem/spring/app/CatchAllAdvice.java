package dev.idem.spring.app;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * With {@code orders.catch-all-advice=true}: the catch-all many applications have, turning every
 * runtime exception into a 500 of their own.
 */
@RestControllerAdvice
@ConditionalOnBooleanProperty("orders.catch-all-advice")
public class CatchAllAdvice {

    @ExceptionHandler(RuntimeException.class)
    ResponseEntity<String> unexpected(RuntimeException e) {
        return ResponseEntity.status(500).body("{\"error\":\"unexpected\"}");
    }
}
