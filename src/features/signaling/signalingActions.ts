/**
 * The signaling channel as the rest of the app sees it: validated frames come
 * in as `messageReceived`; other features ask for frames with `sendRequested`
 * and hear `sendFailed` when the channel could not take them (closed, or lost while
 * they were held through a reconnect: signaling.ts): the chat keeps the visitor's text
 * and shows catalogue.sendWhileClosed.
 *
 * These are plain actions: the connection state itself lives in sessionSlice.
 */
import { createAction } from '@reduxjs/toolkit';
import type { ClientRequest, ServerMessage } from './protocol.ts';

export const messageReceived = createAction<ServerMessage>('signaling/messageReceived');

export const sendRequested = createAction<ClientRequest>('signaling/sendRequested');

export const sendFailed = createAction<{ request: ClientRequest; reason: 'closed' }>('signaling/sendFailed');
