/**
 * idem's operations: an admin API over a store's records, inboxes' quarantines, outboxes and
 * sweepers ({@link dev.idem.admin.IdemAdmin}), a Jakarta Servlet that serves it as JSON with a web
 * console ({@link dev.idem.admin.IdemAdminServlet}). The inbox, the outbox and the Servlet API are
 * optional: an application without them leaves those parts out.
 */
module dev.idem.admin {
    requires transitive dev.idem.core;
    requires static transitive dev.idem.inbox;
    requires static transitive dev.idem.outbox;
    requires static transitive jakarta.servlet;
    requires tools.jackson.databind;

    exports dev.idem.admin;
}
