package dev.idem.jdbc;

import dev.idem.testing.ReplicatedMariadb;

/** The failover contract on a MariaDB primary and GTID replica of the test's own (semi-synchronous for the synchronous case). */
class MariadbFailoverTest extends FailoverContract {
    private static final String DATABASE = "idem";

    @Override
    protected String backend() {
        return "MariaDB";
    }

    @Override
    protected Pair start(boolean synchronous) {
        ReplicatedMariadb maria = ReplicatedMariadb.start(synchronous ? ReplicatedMariadb.Replication.SEMI_SYNCHRONOUS
                : ReplicatedMariadb.Replication.ASYNCHRONOUS);
        try {
            maria.executeOnPrimary("CREATE DATABASE " + DATABASE + " CHARACTER SET utf8mb4");
            maria.awaitReplicaCaughtUp();
        } catch (RuntimeException e) {
            maria.close();
            throw e;
        }
        return new Pair() {
            @Override
            public String failoverUrl() {
                return maria.failoverUrl(DATABASE);
            }

            @Override
            public String standbyUrl() {
                return maria.replicaApplicationUrl(DATABASE);
            }

            @Override
            public void awaitStandbyCaughtUp() {
                maria.awaitReplicaCaughtUp();
            }

            @Override
            public void pauseStandby() {
                maria.pauseReplica();
            }

            @Override
            public long lag() {
                return maria.lagTransactions();
            }

            @Override
            public String lagUnit() {
                return "transactions";
            }

            @Override
            public void killPrimary() {
                maria.killPrimary();
            }

            @Override
            public void promoteStandby() {
                maria.promoteReplica();
            }

            @Override
            public void close() {
                maria.close();
            }
        };
    }
}
