package dev.idem.spring.trace;

import dev.idem.outbox.Outbox;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import dev.idem.spring.Idempotent;

/** Captures a payment: one outbox event, appended in the request's transaction. */
@RestController
public class PaymentsController {
    private final Outbox outbox;
    private final DataSource dataSource;

    public PaymentsController(Outbox outbox, DataSource dataSource) {
        this.outbox = outbox;
        this.dataSource = dataSource;
    }

    @PostMapping("/trace/payments")
    @Idempotent(transactional = true)
    public ResponseEntity<Map<String, String>> capture(@RequestBody String body) throws SQLException {
        Connection connection = DataSourceUtils.getConnection(dataSource);  // the transaction's, released at its end
        outbox.append(connection, "payment", "p-1", "PaymentCaptured", body.getBytes(StandardCharsets.UTF_8));
        return ResponseEntity.status(HttpStatus.CREATED).body(Map.of("status", "captured"));
    }
}
