package dev.idem.demo.gateway;

import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;

class PostgresCardGatewayTest extends CardGatewayContract {
    @Override
    protected TestDatabase openDatabase() {
        return RealServices.postgres();
    }
}
