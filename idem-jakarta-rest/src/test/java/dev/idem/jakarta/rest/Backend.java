package dev.idem.jakarta.rest;

import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;

/** The real databases the feature is tested on, through a JdbcIdempotencyStore (HikariCP for PostgreSQL). */
enum Backend {
    POSTGRESQL {
        @Override
        TestDatabase open() {
            return RealServices.postgres();
        }
    },
    SQLITE {
        @Override
        TestDatabase open() {
            return RealServices.sqlite();
        }
    };

    abstract TestDatabase open();
}
