package dev.idem.demo.lab;

/** One row of the lab's table: a client strategy against a server variant under a fault. */
public record Scenario(String id, ClientStrategy strategy, ServerVariant variant, Fault fault, Expectation expectation) {
}
