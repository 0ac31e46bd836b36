package dev.idem.spring.internal;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns {@link NoIdempotencyStoreException} into Boot's "APPLICATION FAILED TO START" description and action. */
public final class NoIdempotencyStoreFailureAnalyzer extends AbstractFailureAnalyzer<NoIdempotencyStoreException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, NoIdempotencyStoreException cause) {
        return new FailureAnalysis(
                "idem-spring-boot-starter found no IdempotencyStore bean and no single DataSource to build one on.",
                "Configure a DataSource (spring.datasource.url pointing at PostgreSQL, or at SQLite through"
                        + " dev.idem.jdbc.Sqlite.url(path)), or define an IdempotencyStore or Idem bean,"
                        + " or turn idem off with idem.enabled=false.",
                cause);
    }
}
