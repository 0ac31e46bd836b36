package dev.idem.kafka;

import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;

/** The real databases the Kafka adapter is tested on. */
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
    },
    MARIADB {
        @Override
        TestDatabase open() {
            return RealServices.mariadb();
        }
    };

    abstract TestDatabase open();
}
