package io.verglas.bench.scale;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class RetainedHeapTest {
  private record Holder(List<byte[]> blocks) {}

  @Test
  void countsWhatIsReachableThroughRecordsAndLambdas() {
    List<byte[]> blocks = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      blocks.add(new byte[1_000]);
    }
    Holder holder = new Holder(blocks);
    Supplier<Holder> lambda = () -> holder;

    RetainedHeap.Footprint footprint = RetainedHeap.of(lambda);

    assertThat(footprint.bytes()).isBetween(100_000L, 110_000L);
    assertThat(footprint.classes().get("[B")[0]).isEqualTo(100);
  }

  @Test
  void doesNotFollowThreadsOrWeakReferents() {
    byte[] large = new byte[1 << 20];
    Object root = List.of(new java.lang.ref.WeakReference<>(large), Thread.currentThread());

    assertThat(RetainedHeap.of(root).bytes()).isLessThan(1_000);
  }

  @Test
  void doesNotFollowACleanersListToOtherRegistrations() {
    java.lang.ref.Cleaner cleaner = java.lang.ref.Cleaner.create();
    byte[] theirs = new byte[1 << 20];
    Object other = new Object();
    java.lang.ref.Cleaner.Cleanable otherRegistration =
        cleaner.register(other, () -> theirs[0] = 1);
    Object mine = new Object();
    Object root = List.of(cleaner.register(mine, () -> { }));

    assertThat(RetainedHeap.of(root).bytes()).isLessThan(1_000);
    otherRegistration.clean();
  }

  @Test
  void doesNotFollowGrpcsRegistryOfEveryServerAndChannel() {
    Object root = new Object[] {io.grpc.InternalChannelz.instance()};

    assertThat(RetainedHeap.of(root).objects()).isEqualTo(1); // the array
  }

  @Test
  void doesNotFollowNettysEventLoops() throws InterruptedException {
    io.netty.channel.EventLoopGroup group = new io.netty.channel.nio.NioEventLoopGroup(1);
    try {
      Object root = new Object[] {group.next()};

      assertThat(RetainedHeap.of(root).objects()).isEqualTo(1); // the array
    } finally {
      group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).await();
    }
  }

  @Test
  void perTableIsTheLargestGrowthOverTheTables() {
    RetainedHeap.Footprint small = RetainedHeap.of(List.of(new byte[984]));
    RetainedHeap.Footprint large = RetainedHeap.of(List.of(new byte[984], new byte[9_984]));

    assertThat(RetainedHeap.perTable(small.classes(), large.classes(), 10, 1))
        .containsEntry("[B", 1_000.0);
  }

  private record Outer(Holder inner, byte[] own) {}

  @Test
  void pathsNameTheNearestOwnersAndTheirFields() {
    Outer outer = new Outer(new Holder(new ArrayList<>(List.of(new byte[984]))), new byte[16]);

    RetainedHeap.Footprint footprint = RetainedHeap.withPaths(List.of(outer));

    assertThat(footprint.paths())
        .containsKey("[B @ Holder.blocks < Outer.inner < root")
        .containsKey("[B @ Outer.own < root");
    assertThat(footprint.paths().get("[B @ Holder.blocks < Outer.inner < root")[1])
        .isEqualTo(1_000);
    assertThat(RetainedHeap.of(List.of(outer)).paths()).isEmpty();
  }
}
