package dev.idem.spring;

import java.lang.reflect.Method;

/**
 * The root object of an {@link IdempotentMethod}'s {@code key} and {@code fingerprint} expressions:
 * {@code #root.target} is the bean the method runs on (not its proxy), {@code #root.beanName} its
 * name, {@code #root.method} the method and {@code #root.args} the arguments. Beside it, each
 * argument is a variable: {@code #order}, {@code #p0}, {@code #a0}.
 *
 * <pre>{@code
 * @IdempotentMethod(key = "#root.target.currency() + ':' + #entry.id", scope = "ledger-post")
 * }</pre>
 */
public final class IdempotentMethodCall {
    private final Object target;
    private final String beanName;
    private final Method method;
    private final Object[] args;

    IdempotentMethodCall(Object target, String beanName, Method method, Object[] args) {
        this.target = target;
        this.beanName = beanName;
        this.method = method;
        this.args = args;
    }

    /** The bean the method runs on. */
    public Object getTarget() {
        return target;
    }

    /** The bean's name in the application context, or {@code null} if it has none. */
    public String getBeanName() {
        return beanName;
    }

    public Method getMethod() {
        return method;
    }

    /** The call's arguments (the array itself: expressions must not change it). */
    public Object[] getArgs() {
        return args;
    }
}
