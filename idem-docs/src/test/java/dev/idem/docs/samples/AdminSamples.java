package dev.idem.docs.samples;

import dev.idem.Sweeper;
import dev.idem.admin.IdemAdmin;
import dev.idem.admin.IdemAdminServlet;
import dev.idem.admin.QuarantinedConsumer;
import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxHandler;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.outbox.Outbox;

/** The admin API's sample of docs/operations.md, as it is printed. */
final class AdminSamples {
    private AdminSamples() {
    }

    static IdemAdminServlet adminServlet(JdbcIdempotencyStore store, Inbox inbox, InboxHandler paymentsHandler, Outbox outbox,
            Sweeper sweeper) {
        // sample: operations-admin
        IdemAdmin admin = IdemAdmin.builder().store(store).durability(store::durabilityFindings)
                .consumer(new QuarantinedConsumer("payments", inbox.quarantine(), paymentsHandler))
                .outbox("orders", outbox).sweeper(sweeper).build();
        // Map it at a path of its own, e.g. /idem-admin/*: every request needs the role.
        IdemAdminServlet servlet = IdemAdminServlet.builder(admin).role("IDEM_ADMIN").console(true).build();
        // end sample
        return servlet;
    }
}
