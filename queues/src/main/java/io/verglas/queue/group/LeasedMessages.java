package io.verglas.queue.group;

import io.verglas.queue.Delivery;
import java.util.List;

/** The messages of a lease's segments, in log order, with the lease that covers them. */
public record LeasedMessages(Lease lease, List<Delivery> messages) {
  public LeasedMessages {
    messages = List.copyOf(messages);
  }
}
