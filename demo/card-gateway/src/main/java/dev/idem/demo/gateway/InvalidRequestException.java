package dev.idem.demo.gateway;

/** A request the gateway refuses with a 4xx problem before anything is charged. */
final class InvalidRequestException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String title;

    InvalidRequestException(int status, String title, String detail) {
        super(detail);
        this.status = status;
        this.title = title;
    }

    static InvalidRequestException badRequest(String detail) {
        return new InvalidRequestException(400, "Bad Request", detail);
    }

    int status() {
        return status;
    }

    String title() {
        return title;
    }
}
