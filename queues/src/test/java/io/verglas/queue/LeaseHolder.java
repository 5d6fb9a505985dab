package io.verglas.queue;

import io.verglas.queue.group.LeasedMessages;
import io.verglas.store.ObjectStoreEndpoint;
import java.net.URI;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A consumer process for {@link ConsumerKillITCase}: leases the next segments of a group, prints
 * {@code LEASED <first> <last>} and then waits to be killed, never acknowledging.
 * Arguments: endpoint, region, access key, secret key, bucket, queue, group.
 */
public final class LeaseHolder {
  private LeaseHolder() {}

  public static void main(String[] args) throws Exception {
    ObjectStoreEndpoint endpoint =
        new ObjectStoreEndpoint(URI.create(args[0]), args[1], args[2], args[3], args[4]);
    try (S3Client s3 = endpoint.newClient();
        Queues queues = new Queues(s3, endpoint.bucket(), QueueSettings.defaults())) {
      LeasedMessages leased = queues.consumer(args[5], args[6], "doomed").poll().orElseThrow();
      System.out.println("LEASED " + leased.lease().first() + " " + leased.lease().last());
      System.out.flush();
      Thread.sleep(Long.MAX_VALUE);
    }
  }
}
