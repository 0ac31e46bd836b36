package dev.idem.spring;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;

/** The real databases the starter is tested on. */
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

    /** The JDBC URL of {@code db}, for an application's own {@code spring.datasource.url}. */
    static String jdbcUrl(TestDatabase db) {
        return ((HikariDataSource) db.dataSource()).getJdbcUrl();
    }
}
