package org.cobraverify.schemas.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;

/**
 * A small client of the Confluent schema-registry REST API (Confluent, Apicurio's {@code /apis/ccompat/v7}, Karapace,
 * Redpanda), over {@code java.net.http}: register a schema under a subject, read one by id, set a subject's
 * compatibility. Confluent's own client is not served where this project builds; this is the part of it the pipeline
 * needs. Ids are cached both ways, so a producer or consumer asks the registry once per schema, not per record.
 *
 * <p>Credentials come from client settings ({@code basic.auth.user.info=user:password}, as Confluent's clients take
 * them), never from a command line, and are never printed.
 */
public final class SchemaRegistryClient {
    /**
     * A refusal or failure of the registry, with its HTTP status (0: unreachable) and its message. Unchecked: whoever
     * reads or writes a record stops on it, without consuming the record (it is never a malformed record).
     */
    public static final class RegistryException extends IllegalStateException {
        private final int status;

        public RegistryException(int status, String message, Throwable cause) {
            super(message, cause);
            this.status = status;
        }

        /** The HTTP status, 409 for an incompatible schema; 0 when the registry could not be reached. */
        public int status() { return status; }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TYPE = "application/vnd.schemaregistry.v1+json";

    private final URI base;
    private final String authorization;
    private final Duration requestTimeout;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final Map<String, Integer> idBySubjectAndSchema = new ConcurrentHashMap<>();
    private final Map<Integer, Schema> schemaById = new ConcurrentHashMap<>();

    /** {@code base}: the API's root, such as {@code http://127.0.0.1:8081} or {@code http://host/apis/ccompat/v7}. */
    public SchemaRegistryClient(String base, Properties settings) {
        this.base = URI.create(base.endsWith("/") ? base : base + "/");
        String userInfo = settings.getProperty("basic.auth.user.info");
        this.authorization = userInfo == null ? null : "Basic " + Base64.getEncoder().encodeToString(userInfo.getBytes(StandardCharsets.UTF_8));
        this.requestTimeout = Duration.ofMillis(Long.parseLong(settings.getProperty("schema.registry.request.timeout.ms", "30000").trim()));
    }

    /** The subject of a topic's record values under the default naming strategy: {@code <topic>-value}. */
    public static String subject(String topic) { return topic + "-value"; }

    /** Registers {@code schema} under {@code subject} (or finds it registered) and returns its id. */
    public int register(String subject, Schema schema) {
        String key = subject + "\u0000" + schema;
        Integer known = idBySubjectAndSchema.get(key);
        if (known != null) return known;
        ObjectNode body = JSON.createObjectNode().put("schema", schema.toString());
        JsonNode r = send("POST", "subjects/" + subject + "/versions", body, "register a schema under subject " + subject);
        int id = r.path("id").asInt(-1);
        if (id < 0) throw new RegistryException(200, "the registry at " + base + " answered a registration under " + subject + " without an id: " + r, null);
        idBySubjectAndSchema.put(key, id);
        schemaById.putIfAbsent(id, schema);
        return id;
    }

    /** The schema with this id. */
    public Schema byId(int id) {
        Schema s = schemaById.get(id);
        if (s != null) return s;
        JsonNode r = send("GET", "schemas/ids/" + id, null, "read the schema with id " + id);
        s = new Schema.Parser().parse(r.path("schema").asText());
        schemaById.putIfAbsent(id, s);
        return s;
    }

    /** The version numbers registered under {@code subject}; empty when the subject does not exist. */
    public java.util.List<Integer> versions(String subject) {
        java.util.List<Integer> out = new java.util.ArrayList<>();
        try {
            for (JsonNode v : send("GET", "subjects/" + subject + "/versions", null, "list the versions of subject " + subject)) out.add(v.asInt());
        } catch (RegistryException e) {
            if (e.status() == 404) return out;
            throw e;
        }
        return out;
    }

    /** The subjects the registry holds. */
    public java.util.List<String> subjects() {
        java.util.List<String> out = new java.util.ArrayList<>();
        for (JsonNode v : send("GET", "subjects", null, "list its subjects")) out.add(v.asText());
        return out;
    }

    /** Sets the subject's compatibility level (BACKWARD, FORWARD, FULL, NONE, and their _TRANSITIVE forms). */
    public void compatibility(String subject, String level) {
        send("PUT", "config/" + subject, JSON.createObjectNode().put("compatibility", level), "set the compatibility of " + subject);
    }

    private JsonNode send(String method, String path, JsonNode body, String what) {
        URI u = base.resolve(path);
        HttpRequest.Builder b = HttpRequest.newBuilder(u).timeout(requestTimeout).header("Accept", TYPE);
        if (authorization != null) b.header("Authorization", authorization);
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body.toString()));
        if (body != null) b.header("Content-Type", TYPE);
        HttpResponse<String> r;
        try {
            r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (ConnectException e) {
            throw new RegistryException(0, "the schema registry at " + base + " cannot be reached (" + what + "): connection refused", e);
        } catch (java.net.http.HttpTimeoutException e) {
            throw new RegistryException(0, "the schema registry at " + base + " did not answer within " + requestTimeout.toMillis() + " ms (" + what + ")", e);
        } catch (IOException e) {
            throw new RegistryException(0, "the schema registry at " + base + " cannot be reached (" + what + "): " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RegistryException(0, "interrupted while trying to " + what, e);
        }
        JsonNode j;
        try {
            j = r.body().isBlank() ? JSON.createObjectNode() : JSON.readTree(r.body());
        } catch (IOException e) {
            throw new RegistryException(r.statusCode(), "the schema registry at " + base + " answered " + r.statusCode() + " with something not JSON when asked to "
                    + what, e);
        }
        if (r.statusCode() / 100 != 2) {
            String message = j.path("message").asText(r.body());
            throw new RegistryException(r.statusCode(), "the schema registry at " + base + " refused to " + what + " (HTTP " + r.statusCode()
                    + (r.statusCode() == 409 ? ", incompatible with the subject's earlier versions" : "") + "): " + message, null);
        }
        return j;
    }
}
