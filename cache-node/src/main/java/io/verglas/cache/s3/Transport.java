package io.verglas.cache.s3;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;

/**
 * The event-loop transport of the S3 endpoint: native epoll where Netty's native library loads
 * (Linux x86-64: fewer system calls per request than NIO's selector, no selected-key set
 * garbage), else NIO. Both behave the same to the handlers.
 */
enum Transport {
  EPOLL, NIO;

  /** Epoll if available on this machine. */
  static Transport best() {
    return Epoll.isAvailable() ? EPOLL : NIO;
  }

  IoHandlerFactory ioHandlerFactory() {
    return this == EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
  }

  Class<? extends ServerChannel> serverChannel() {
    return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
  }
}
