package dev.idem.spring;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code idem.admin.*}: the operators' admin API (the actuator endpoint {@code idem}) and the web
 * console, with dev.idem:idem-admin on the class path. See docs/operations.md.
 */
@ConfigurationProperties("idem.admin")
public class IdemAdminProperties {
    /**
     * The role an operator needs for the endpoint's actions (release, replay, drop) and for every
     * request to the console, as the request's isUserInRole answers it (Spring Security's roles, without
     * the ROLE_ prefix). Without Spring Security or a container's authentication nobody has it: actions
     * and the console are then refused.
     */
    private String role = "IDEM_ADMIN";

    /** Refuses every action (release, replay, drop) while reads still answer. */
    private boolean readOnly = false;

    /**
     * Shows quarantined messages' payloads, headers and error texts, and the outbox's last errors: the
     * application's data, which may quote card numbers or personal data. Records never show a body.
     */
    private boolean showContent = false;

    private final Console console = new Console();

    public String getRole() {
        return role;
    }

    public void setRole(String role) {
        this.role = role;
    }

    public boolean isReadOnly() {
        return readOnly;
    }

    public void setReadOnly(boolean readOnly) {
        this.readOnly = readOnly;
    }

    public boolean isShowContent() {
        return showContent;
    }

    public void setShowContent(boolean showContent) {
        this.showContent = showContent;
    }

    public Console getConsole() {
        return console;
    }

    /** {@code idem.admin.console.*}: the web console and the JSON API beside it, a servlet of its own. */
    public static class Console {
        /** Serves the web console (and its JSON API) at idem.admin.console.path, to holders of idem.admin.role only. */
        private boolean enabled = false;

        /** Where the console is served. */
        private String path = "/idem-admin";

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getPath() {
            return path;
        }

        public void setPath(String path) {
            this.path = path;
        }
    }
}
