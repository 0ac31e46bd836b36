package dev.idem.kafka;

class PostgresKafkaConsumerTest extends KafkaConsumerContract {
    @Override
    protected Backend backend() {
        return Backend.POSTGRESQL;
    }
}
