package io.verglas.workers.event;

import io.cloudevents.CloudEvent;
import io.cloudevents.jackson.JsonFormat;
import java.nio.charset.StandardCharsets;

/**
 * The one byte form of a dispatch's trigger event: structured-mode CloudEvents 1.0 JSON, as the
 * queue stores it and as a worker's child process will receive it.
 */
public final class CloudEventCodec {
  private static final JsonFormat FORMAT = new JsonFormat();

  private CloudEventCodec() {}

  public static String toJson(CloudEvent event) {
    return new String(FORMAT.serialize(event), StandardCharsets.UTF_8);
  }

  public static CloudEvent fromJson(String json) {
    try {
      return FORMAT.deserialize(json.getBytes(StandardCharsets.UTF_8));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("Cannot read CloudEvent: " + e.getMessage(), e);
    }
  }
}
