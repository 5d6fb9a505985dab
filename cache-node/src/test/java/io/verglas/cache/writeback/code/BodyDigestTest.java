package io.verglas.cache.writeback.code;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The body's MD5 from the coded stripes, on a thread of its own: the MD5 of the body, padding left out. */
class BodyDigestTest {
  private final ExecutorService thread = Executors.newSingleThreadExecutor();

  @AfterEach
  void stop() {
    thread.shutdownNow();
  }

  @Test
  void isTheMd5OfTheBodyWhateverItsLengthAndHowItArrives() throws Exception {
    Geometry geometry = new Geometry(3, 2, 1000);
    Random random = new Random(11);
    for (int length : new int[] {0, 1, 2999, 3000, 3001, 3000 * 7 + 17}) {
      byte[] body = new byte[length];
      random.nextBytes(body);
      byte[] expected = MessageDigest.getInstance("MD5").digest(body);
      for (boolean chunks : new boolean[] {false, true}) {
        BodyDigest md5 = new BodyDigest(geometry, length, thread);
        StripeEncoder encoder = new StripeEncoder(geometry, md5);
        if (chunks) {
          encoder.write(ByteBuffer.wrap(body)); // whole stripes coded in place
        } else {
          encoder.transfer(new ByteArrayInputStream(body));
        }
        encoder.finish();
        assertThat(md5.digest()).as(length + " bytes, chunks " + chunks).isEqualTo(expected);
      }
    }
  }
}
