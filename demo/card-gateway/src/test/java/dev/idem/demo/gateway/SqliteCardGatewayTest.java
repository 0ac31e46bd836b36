package dev.idem.demo.gateway;

import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;

class SqliteCardGatewayTest extends CardGatewayContract {
    @Override
    protected TestDatabase openDatabase() {
        return RealServices.sqlite();
    }
}
