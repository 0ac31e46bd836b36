package dev.idem.kafka;

class SqliteKafkaConsumerTest extends KafkaConsumerContract {
    @Override
    protected Backend backend() {
        return Backend.SQLITE;
    }
}
