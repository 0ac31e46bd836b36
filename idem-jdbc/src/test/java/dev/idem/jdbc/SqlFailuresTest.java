package dev.idem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The transient-failure rule an application applies to its own statements (the store applies it too). */
class SqlFailuresTest {

    @ParameterizedTest(name = "SQLState {0} passes")
    @ValueSource(strings = {"40001", "40P01", "08006", "08003", "57P01", "57014", "53300", "53100"})
    void racesLostConnectionsEndedSessionsAndMissingResourcesPass(String state) {
        assertThat(SqlFailures.isTransient(new SQLException("x", state))).isTrue();
    }

    @ParameterizedTest(name = "SQLState {0} does not pass")
    @ValueSource(strings = {"23505", "42P01", "42601", "22001", "HY000"})
    void constraintSyntaxAndMissingTableFailuresDoNotPass(String state) {
        assertThat(SqlFailures.isTransient(new SQLException("x", state))).isFalse();
    }

    @Test
    void withoutAnSqlStateThePoolsTimeoutAndALostConnectionPassButAPlainFailureDoesNot() {
        assertThat(SqlFailures.isTransient(new SQLTransientConnectionException("pool timed out"))).isTrue();
        assertThat(SqlFailures.isTransient(new SQLNonTransientConnectionException("connection closed"))).isTrue();
        assertThat(SqlFailures.isTransient(new SQLException("something else"))).isFalse();
    }

    @Test
    void theRuleLooksThroughWrappersToTheDatabasesAnswer() {
        RuntimeException wrapped = new IllegalStateException("cannot create the payment",
                new RuntimeException(new SQLException("terminating connection", "57P01")));
        assertThat(SqlFailures.isTransient(wrapped)).isTrue();
        assertThat(SqlFailures.isTransient(new IllegalStateException("no database involved"))).isFalse();
        assertThat(SqlFailures.isTransient(null)).isFalse();
    }
}
