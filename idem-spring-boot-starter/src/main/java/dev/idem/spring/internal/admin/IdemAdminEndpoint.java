package dev.idem.spring.internal.admin;

import dev.idem.InvalidKeyException;
import dev.idem.StoreException;
import dev.idem.admin.IdemAdmin;
import java.security.Principal;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import org.springframework.lang.Nullable;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The actuator endpoint {@code idem}: {@link IdemAdmin}'s reads at {@code GET /actuator/idem} (the
 * overview) and {@code GET /actuator/idem/{records|stuck|inbox|outbox|sweepers|store}}, its actions at
 * {@code POST /actuator/idem/{release|replay|drop}} with a JSON body (actuator takes no other, which a
 * cross-site form cannot send). Reads are guarded as the application guards its actuator endpoints;
 * actions also need the role {@code idem.admin.role} and are refused in read-only mode.
 */
// Spring's @Nullable marks the optional query parameters on both Boot lines: Boot 3's actuator looks for
// that annotation only, Boot 4's for any annotation named Nullable (Spring 7 deprecates this one).
@SuppressWarnings("deprecation")
@Endpoint(id = "idem")
public class IdemAdminEndpoint {
    private final IdemAdmin admin;
    private final String role;
    private final boolean readOnly;

    public IdemAdminEndpoint(IdemAdmin admin, String role, boolean readOnly) {
        this.admin = admin;
        this.role = role;
        this.readOnly = readOnly;
    }

    @ReadOperation
    public Map<String, Object> overview() {
        return admin.overview();
    }

    @ReadOperation
    public WebEndpointResponse<Object> part(@Selector String part, @Nullable String scope, @Nullable String key,
            @Nullable Integer limit, @Nullable String consumer) {
        int max = limit == null ? 50 : limit;
        return answer(() -> switch (part) {
            case "records" -> admin.record(scope, key);
            case "stuck" -> admin.stuck(max);
            case "inbox" -> consumer == null ? admin.quarantine(max) : admin.quarantine(consumer, max);
            case "outbox" -> admin.outbox();
            case "sweepers" -> admin.sweepers();
            case "store" -> admin.store();
            default -> throw new NoSuchElementException("no such part of the idem endpoint");
        });
    }

    @WriteOperation
    public WebEndpointResponse<Object> act(@Selector String action, SecurityContext security, @Nullable String scope,
            @Nullable String key, @Nullable String token, @Nullable Boolean force, @Nullable String consumer,
            @Nullable String messageId, @Nullable Boolean all) {
        Principal principal = security.getPrincipal();
        String actor = principal == null ? null : principal.getName();
        if (!action.equals("release") && !action.equals("replay") && !action.equals("drop")) {
            return problem(404, "no such action of the idem endpoint");
        }
        if (principal == null || !security.isUserInRole(role)) {
            admin.refused(action, actor, principal == null ? "not authenticated" : "without the role");
            return problem(principal == null ? 401 : 403, "idem's admin actions need the role " + role);
        }
        if (readOnly) {
            admin.refused(action, actor, "read-only mode");
            return problem(403, "idem's admin API is read-only here");
        }
        return answer(() -> switch (action) {
            case "release" -> admin.release(actor, scope, key, token(token), Boolean.TRUE.equals(force));
            case "replay" -> Boolean.TRUE.equals(all) ? admin.replayAll(actor, consumer) : admin.replay(actor, consumer, messageId);
            default -> admin.drop(actor, consumer, messageId);
        });
    }

    private static long token(String token) {
        if (token == null || !token.matches("-?\\d{1,19}")) {
            throw new IllegalArgumentException("token must be the record's token, as a string of digits");
        }
        return Long.parseLong(token);
    }

    private static WebEndpointResponse<Object> answer(java.util.function.Supplier<Object> read) {
        try {
            return new WebEndpointResponse<>(read.get(), 200);
        } catch (IllegalArgumentException | InvalidKeyException e) {
            return problem(400, e.getMessage());
        } catch (NoSuchElementException e) {
            return problem(404, e.getMessage());
        } catch (UnsupportedOperationException e) {
            return problem(501, e.getMessage());
        } catch (StoreException e) {
            return problem(503, e.getMessage());
        }
    }

    private static WebEndpointResponse<Object> problem(int status, String detail) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", status);
        body.put("detail", detail);
        return new WebEndpointResponse<>(body, status);
    }
}
