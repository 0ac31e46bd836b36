package dev.idem.spring.internal.listener;

import dev.idem.inbox.Inbox;
import dev.idem.spring.IdempotentListener;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.List;
import java.util.function.Function;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.core.ResolvableType;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.SimpleEvaluationContext;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;
import org.springframework.messaging.handler.annotation.Payload;

/**
 * One {@link IdempotentListener} method as the advice runs it, checked while the application starts:
 * its consumer name, which argument is the message (or the batch's list), how a message's id is read,
 * and which argument is the manual acknowledgement.
 *
 * @param where     {@code Class#method}, for messages
 * @param batch     whether the message argument is a list of messages
 * @param message   the index of the message (or list) argument
 * @param ids       a message's id from an element (null if it has none)
 * @param ack       the index of the acknowledgement argument, or -1
 */
public record ListenerMethod(Method method, String where, String consumer, boolean batch, int message,
                             Function<Object, String> ids, ListenerBroker broker, int ack) {
    /** No constructors, no type references, no assignments: an id expression only reads the message. */
    private static final EvaluationContext READ_ONLY = SimpleEvaluationContext.forReadOnlyDataBinding().withInstanceMethods().build();

    /** Checks what the guarantee needs of the listener's container, with the inbox's maximum attempts; once all singletons exist. */
    public void checkContainer(ListableBeanFactory beans, int maxAttempts) {
        broker.check(method, where, batch, maxAttempts, beans);
    }

    /**
     * Describes {@code method} of the bean {@code beanName} for {@code broker}.
     *
     * @throws IllegalStateException naming the method, if a setting is invalid or the id cannot be told
     */
    public static ListenerMethod of(Method method, String beanName, IdempotentListener settings, ListenerBroker broker) {
        String where = method.getDeclaringClass().getName() + "#" + method.getName();
        String consumer = consumer(method, beanName, settings, broker, where);
        int message = messageParameter(method, broker, where);
        boolean batch = List.class.isAssignableFrom(method.getParameterTypes()[message]);
        ResolvableType type = ResolvableType.forMethodParameter(method, message);
        Class<?> element = batch ? type.getGeneric(0).resolve(Object.class) : type.resolve(Object.class);
        Function<Object, String> ids = ids(settings, broker, element, where);
        return new ListenerMethod(method, where, consumer, batch, message, ids, broker, broker.acknowledgementParameter(method));
    }

    private static String consumer(Method method, String beanName, IdempotentListener settings, ListenerBroker broker, String where) {
        String consumer = !settings.consumer().isEmpty() ? settings.consumer()
                : !broker.listenerId(method).isEmpty() ? broker.listenerId(method)
                : beanName + "#" + method.getName();
        try {
            return Inbox.checkConsumerName(consumer, "consumer name");
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("@IdempotentListener on " + where + ": " + e.getMessage()
                    + "; set @IdempotentListener(consumer = ...)", e);
        }
    }

    /** The @Payload parameter, else the first the container does not supply and no @Header names. */
    private static int messageParameter(Method method, ListenerBroker broker, String where) {
        Parameter[] parameters = method.getParameters();
        int first = -1;
        for (int i = 0; i < parameters.length; i++) {
            Parameter p = parameters[i];
            if (p.isAnnotationPresent(Payload.class)) {
                return i;
            }
            boolean header = p.isAnnotationPresent(Header.class) || p.isAnnotationPresent(Headers.class);
            if (first < 0 && !header && !broker.containerArgument(p.getType())) {
                first = i;
            }
        }
        if (first < 0) {
            throw new IllegalStateException("@IdempotentListener on " + where + " has no message parameter: the message id"
                    + " cannot be determined");
        }
        return first;
    }

    private static Function<Object, String> ids(IdempotentListener settings, ListenerBroker broker, Class<?> element, String where) {
        if (!settings.messageId().isEmpty() && !settings.messageIdHeader().isEmpty()) {
            throw new IllegalStateException("@IdempotentListener on " + where + " sets both messageId and messageIdHeader; set one");
        }
        if (!settings.messageId().isEmpty()) {
            Expression expression;
            try {
                expression = new SpelExpressionParser().parseExpression(settings.messageId());
            } catch (ParseException e) {
                throw new IllegalStateException("@IdempotentListener on " + where + ": messageId is not a valid SpEL expression: "
                        + e.getMessage(), e);
            }
            return root -> {
                Object value = expression.getValue(READ_ONLY, root);
                return value == null ? null : value.toString();
            };
        }
        Function<Object, String> ids = broker.messageIds(element, settings.messageIdHeader());
        if (ids == null) {
            throw new IllegalStateException("@IdempotentListener on " + where + ": the message id of a " + element.getName()
                    + " argument cannot be determined; take the " + broker.name() + " message (or a list of them) as the"
                    + " argument, or set @IdempotentListener(messageId = \"<SpEL over the payload>\")");
        }
        return ids;
    }
}
