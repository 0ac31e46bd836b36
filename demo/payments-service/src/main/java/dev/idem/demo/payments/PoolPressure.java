package dev.idem.demo.payments;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.servlet.HandlerInterceptor;

/**
 * A fault of the demo, for the lab: <b>pool pressure</b>. While it is on, every {@code POST /payments}
 * handler borrows one more connection from the service's pool and holds it for the whole request
 * (after a short pause with it in hand), as a handler that keeps a transaction open across a slow
 * call would. With a small pool, idem's own store calls then wait for a connection, time out, or
 * find their lease taken over.
 *
 * <p>On for good with {@code --fault.pool-pressure=true}, or for a while by
 * {@code POST /internal/faults/pool-pressure?millis=N}.
 */
public final class PoolPressure implements HandlerInterceptor {
    private static final Logger LOG = LoggerFactory.getLogger(PoolPressure.class);
    private static final String HELD = PoolPressure.class.getName() + ".held";
    /** How long a handler sits on its extra connection before it goes on. */
    private static final long HOLD_MILLIS = 150;

    private final DataSource dataSource;
    private final ServiceCounters counters;
    private final boolean always;
    private volatile long untilNanos;

    public PoolPressure(DataSource dataSource, ServiceCounters counters, boolean always) {
        this.dataSource = dataSource;
        this.counters = counters;
        this.always = always;
        if (always) {
            LOG.warn("fault on: pool pressure (every payment handler holds an extra pool connection)");
        }
    }

    /** Turns the fault on for {@code duration} from now. */
    public void activate(Duration duration) {
        untilNanos = System.nanoTime() + duration.toNanos();
        LOG.warn("fault on for {} ms: pool pressure", duration.toMillis());
    }

    boolean active() {
        return always || untilNanos - System.nanoTime() > 0;
    }

    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) throws Exception {
        if (!active()) {
            return true;
        }
        try {
            Connection held = dataSource.getConnection();
            request.setAttribute(HELD, held);
            counters.poolPressureHold();
            Thread.sleep(HOLD_MILLIS);
        } catch (SQLException e) {
            // The pool is exhausted already: the fault has done its work for this request.
            LOG.info("pool pressure: no connection to hold ({})", e.getClass().getSimpleName());
        }
        return true;
    }

    @Override
    public void afterCompletion(HttpServletRequest request, HttpServletResponse response, Object handler, Exception ex) throws Exception {
        if (request.getAttribute(HELD) instanceof Connection held) {
            request.removeAttribute(HELD);
            held.close();
        }
    }
}
