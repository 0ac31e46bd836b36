package dev.idem.jdbc;

import dev.idem.StoredResponse;
import java.sql.Connection;

/**
 * Work whose effects all live in the store's database. It must use only the given connection and
 * must not commit, roll back or change its auto-commit mode: idem commits the work together with
 * the claim and the stored response, or rolls all three back.
 */
@FunctionalInterface
public interface TransactionalOperation {
    StoredResponse run(Connection connection) throws Exception;
}
