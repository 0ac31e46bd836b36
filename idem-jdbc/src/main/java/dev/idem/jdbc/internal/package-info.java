/**
 * Not API: what only the key store needs (group commit, the response cache, the connection kept for
 * lease renewals, the stored-header codec) and what only idem-jdbc's builders run (the dialect
 * resolution with SQLite's checks, the durability check, the start-up retry of migrations). Not
 * exported; it changes without notice.
 */
package dev.idem.jdbc.internal;
