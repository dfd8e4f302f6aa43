import { defineMessages } from 'react-intl';

/** The network stats panel (docs/contract.md C17 names the region, the labels and the button in en). */
export const statsMessages = defineMessages({
  title: { id: 'stats.title', defaultMessage: 'Network stats' },
  upstream: { id: 'stats.upstream', defaultMessage: 'Upstream' },
  downstream: { id: 'stats.downstream', defaultMessage: 'Downstream' },
  packetLoss: { id: 'stats.packetLoss', defaultMessage: 'Packet loss' },
  jitter: { id: 'stats.jitter', defaultMessage: 'Jitter' },
  rtt: { id: 'stats.rtt', defaultMessage: 'RTT' },
  quality: { id: 'stats.quality', defaultMessage: 'Quality' },
  /** Its value is the ICE candidate type as WebRTC spells it (host, srflx, prflx, relay), never translated. */
  route: { id: 'stats.route', defaultMessage: 'Route' },
  /** This session's reconnects, one per drop: of the media and of the signaling channel. */
  reconnects: { id: 'stats.reconnects', defaultMessage: 'Reconnects' },
  reconnectCounts: { id: 'stats.reconnectCounts', defaultMessage: 'media {media}, signaling {signaling}' },
  kbps: { id: 'stats.kbps', defaultMessage: '{value} kbps' },
  percent: { id: 'stats.percent', defaultMessage: '{value}%' },
  ms: { id: 'stats.ms', defaultMessage: '{value} ms' },
  excellent: { id: 'stats.level.excellent', defaultMessage: 'Excellent' },
  good: { id: 'stats.level.good', defaultMessage: 'Good' },
  fair: { id: 'stats.level.fair', defaultMessage: 'Fair' },
  poor: { id: 'stats.level.poor', defaultMessage: 'Poor' },
  download: { id: 'stats.downloadLog', defaultMessage: 'Download session log' },
});
