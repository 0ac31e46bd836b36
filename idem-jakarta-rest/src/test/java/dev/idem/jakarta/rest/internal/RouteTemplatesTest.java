package dev.idem.jakarta.rest.internal;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.container.ResourceInfo;
import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;

/** The route template read from a resource method's classes: what the scope and the meters' operation tag name. */
class RouteTemplatesTest {

    @Test
    void theClassAndMethodPathsAreJoinedWithOneSlashAndParametersLoseTheirRegularExpressions() {
        assertThat(RouteTemplates.normalise("/orders/" + "/{id: [0-9]+}/pay/")).isEqualTo("/orders/{id}/pay");
        assertThat(RouteTemplates.normalise("orders/{ id : \\d{3} }/{part:.*/x}")).isEqualTo("/orders/{id}/{part}");
        assertThat(RouteTemplates.normalise("/" + "/")).isEqualTo("/");
        assertThat(RouteTemplates.normalise("a/{unbalanced")).as("kept as written").isEqualTo("/a/{unbalanced");
    }

    @Test
    void pathsInheritedFromAnInterfaceCountAndASubResourceHasNone() throws Exception {
        assertThat(RouteTemplates.of(resource(Orders.class, Orders.class.getMethod("pay", String.class)))).isEqualTo("/orders/{id}/pay");
        assertThat(RouteTemplates.of(resource(Orders.class, Orders.class.getMethod("create")))).isEqualTo("/orders");
        assertThat(RouteTemplates.of(resource(SubResource.class, SubResource.class.getMethod("refund")))).isNull();
    }

    private static ResourceInfo resource(Class<?> type, Method method) {
        return new ResourceInfo() {
            @Override
            public Method getResourceMethod() {
                return method;
            }

            @Override
            public Class<?> getResourceClass() {
                return type;
            }
        };
    }

    @Path("/orders/")
    interface OrdersApi {
        @POST
        @Path("{id: [0-9]+}/pay")
        String pay(String id);

        @POST
        String create();
    }

    /** Its methods carry no Jakarta REST annotations: the interface's apply. */
    static class Orders implements OrdersApi {
        @Override
        public String pay(String id) {
            return id;
        }

        @Override
        public String create() {
            return "created";
        }
    }

    /** Reached through a locator: no {@code @Path} of its own. */
    static class SubResource {
        @POST
        public String refund() {
            return "refunded";
        }
    }
}
