package io.verglas.cache.catalog;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.iceberg.rest.RESTMessage;
import org.apache.iceberg.rest.RESTRequest;
import org.apache.iceberg.rest.RESTSerializers;

/**
 * Reads requests and writes responses as Iceberg's REST client does: the mapper is set up like
 * Iceberg's own (package-private) {@code RESTObjectMapper}, field access, kebab-case names,
 * unknown properties ignored, and Iceberg's serializers for metadata, schemas, updates and
 * errors registered, so both ends agree on every message.
 */
final class RestJson {
  private static final ObjectMapper MAPPER = mapper();

  private RestJson() {}

  private static ObjectMapper mapper() {
    ObjectMapper mapper = new ObjectMapper();
    mapper.setVisibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.ANY);
    mapper.configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    mapper.setPropertyNamingStrategy(new PropertyNamingStrategies.KebabCaseStrategy());
    RESTSerializers.registerAll(mapper);
    return mapper;
  }

  /** Parses and validates a request body; a malformed one is an IllegalArgumentException (400). */
  static <T extends RESTRequest> T read(byte[] body, Class<T> type) {
    T request;
    try {
      request = MAPPER.readValue(body, type);
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException(
          "Cannot parse the request body as " + type.getSimpleName() + ": " + e.getMessage(), e);
    }
    if (request == null) {
      throw new IllegalArgumentException(
          "Cannot parse the request body as " + type.getSimpleName() + ": it is empty");
    }
    request.validate();
    return request;
  }

  static byte[] write(RESTMessage message) {
    try {
      return MAPPER.writeValueAsBytes(message);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("Cannot write a " + message.getClass().getSimpleName(), e);
    }
  }
}
