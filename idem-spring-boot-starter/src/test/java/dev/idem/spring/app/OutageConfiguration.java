package dev.idem.spring.app;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * With {@code orders.outage-switch=true}: the application's {@link DataSource} refuses connections
 * while the {@link Outage} is on, as a database that went away does — for idem's store, the
 * transaction manager and the handlers alike.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty("orders.outage-switch")
public class OutageConfiguration {

    @Bean
    Outage outage() {
        return new Outage();
    }

    @Bean
    static BeanPostProcessor outageDataSource(org.springframework.beans.factory.ObjectProvider<Outage> outage) {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String name) {
                if (!(bean instanceof DataSource dataSource) || bean instanceof DelegatingDataSource) {
                    return bean;
                }
                return new DelegatingDataSource(dataSource) {
                    @Override
                    public Connection getConnection() throws SQLException {
                        refuseDuringOutage();
                        return super.getConnection();
                    }

                    @Override
                    public Connection getConnection(String username, String password) throws SQLException {
                        refuseDuringOutage();
                        return super.getConnection(username, password);
                    }

                    private void refuseDuringOutage() throws SQLException {
                        if (outage.getObject().down()) {
                            throw new SQLException("Connection refused: the database is down (outage switch)", "08001");
                        }
                    }
                };
            }
        };
    }
}
