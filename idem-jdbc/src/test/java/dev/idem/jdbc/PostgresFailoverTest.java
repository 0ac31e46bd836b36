package dev.idem.jdbc;

import dev.idem.testing.ReplicatedPostgres;

/** The failover contract on a PostgreSQL primary and streaming standby of the test's own. */
class PostgresFailoverTest extends FailoverContract {
    @Override
    protected String backend() {
        return "PostgreSQL";
    }

    @Override
    protected Pair start(boolean synchronous) {
        ReplicatedPostgres pg = ReplicatedPostgres.start(synchronous ? ReplicatedPostgres.Replication.SYNCHRONOUS
                : ReplicatedPostgres.Replication.ASYNCHRONOUS);
        return new Pair() {
            @Override
            public String failoverUrl() {
                return pg.failoverUrl();
            }

            @Override
            public String standbyUrl() {
                return pg.standbyUrl();
            }

            @Override
            public void awaitStandbyCaughtUp() {
                pg.awaitStandbyCaughtUp();
            }

            @Override
            public void pauseStandby() {
                pg.pauseStandby();
            }

            @Override
            public long lag() {
                return pg.lagBytes();
            }

            @Override
            public String lagUnit() {
                return "bytes of WAL";
            }

            @Override
            public void killPrimary() {
                pg.killPrimary();
            }

            @Override
            public void promoteStandby() {
                pg.promoteStandby();
            }

            @Override
            public void close() {
                pg.close();
            }
        };
    }
}
