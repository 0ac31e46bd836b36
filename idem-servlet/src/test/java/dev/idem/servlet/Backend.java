package dev.idem.servlet;

import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;

/** The real databases the filter is tested on, through a JdbcIdempotencyStore. */
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
