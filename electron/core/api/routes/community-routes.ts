import { Type } from '@sinclair/typebox'
import { DESCRIPTION_CHARS, parseGroupId, SUBJECT_CHARS } from '../../groups/group-input'
import { COMMUNITY_SAMPLE, CommunitySchema, CommunitySummarySchema } from '../../contract/community'
import { GROUP_SAMPLE } from '../../contract/group'
import type { MessageService } from '../../messages/message-service'
import { defineOperation, type Operation } from '../operation'
import { GROUP_ID, PARTICIPANTS, ParticipantOutcomeSchema } from './group-routes'

export interface CommunityRoutesDeps {
  messages: MessageService
}

const COMMUNITY_ID = {
  type: 'string',
  required: true,
  maxLength: 60,
  description: 'The community id, `<digits>@g.us` (as communities gives it).',
  example: COMMUNITY_SAMPLE.id,
} as const

const { participants: _members, ...SUMMARY_SAMPLE } = COMMUNITY_SAMPLE

const LINK_ANSWER = {
  community_id: Type.String({ description: 'The community id.' }),
  group_id: Type.String({ description: 'The group id.' }),
}

/**
 * communities, community, create_community, link_group and unlink_group: the account's communities (parent
 * groups with linked groups and an announcement group), read and run through the network.
 */
export function communityOperations({ messages }: CommunityRoutesDeps): Operation[] {
  const { communities } = messages
  return [
    defineOperation({
      name: 'communities',
      tag: 'Communities',
      summary: 'The communities the account is in, each with its groups.',
      description:
        'Read from the network each time. Each community lists its linked groups (the announcement group first, `is_member` saying whether this account is in each) and names its `announcement_group`. Communities also appear in groups with `is_community`.',
      auth: 'token',
      instance: true,
      fields: {},
      answer: { communities: Type.Array(CommunitySummarySchema) },
      example: { status: 'success', communities: [SUMMARY_SAMPLE] },
      handle: async ({ instance }) => ({
        status: 'success',
        communities: await communities.list(instance.id),
      }),
    }),
    defineOperation({
      name: 'community',
      tag: 'Communities',
      summary: 'One community: its groups, its announcement group and its members.',
      description:
        'A community this account is not in, or a group that is not a community, is 404 community_not_found.',
      auth: 'token',
      instance: true,
      fields: { community_id: COMMUNITY_ID },
      answer: { community: CommunitySchema },
      example: { status: 'success', community: COMMUNITY_SAMPLE },
      handle: async ({ params, instance }) => ({
        status: 'success',
        community: await communities.get(instance.id, params.community_id),
      }),
    }),
    defineOperation({
      name: 'create_community',
      tag: 'Communities',
      summary: 'Create a community; the network makes its announcement group with it.',
      description:
        'This account is its creator and admin; the members given join it and its announcement group (where only admins send). Every phone number is checked on the network first (422 participant_not_found, nothing made); members whose privacy refuses adds are left out and listed in `not_added` with the invitation, as for create_group. Both the community and its announcement group follow as group.joined.',
      auth: 'token',
      instance: true,
      fields: {
        subject: {
          type: 'string',
          required: true,
          maxLength: 1000,
          description: `At most ${SUBJECT_CHARS} characters.`,
          example: 'Acme customers',
        },
        description: {
          type: 'string',
          maxLength: 10_000,
          description: `At most ${DESCRIPTION_CHARS} characters.`,
        },
        participants: { ...PARTICIPANTS, required: false },
      },
      answer: {
        community: CommunitySchema,
        not_added: Type.Optional(
          Type.Array(ParticipantOutcomeSchema, { description: 'Only when the network left someone out.' }),
        ),
      },
      example: { status: 'success', community: COMMUNITY_SAMPLE },
      handle: async ({ params, instance }) => ({
        status: 'success',
        ...(await communities.create(
          instance.id,
          params.subject,
          params.description,
          params.participants ?? [],
        )),
      }),
    }),
    linkOperation({
      name: 'link_group',
      summary: 'Link a group to a community: its members join the community and its announcement group.',
      description:
        'This account must admin both (403 not_group_admin). An unknown community is 404 community_not_found, an unknown group 404 group_not_found; a group already in a community is 409 group_already_linked; a community or an announcement group is 400 invalid_parameter. All is checked before anything is sent, so a refusal changes nothing. community.linked follows.',
      run: (instanceId, communityId, groupId) => communities.link(instanceId, communityId, groupId),
    }),
    linkOperation({
      name: 'unlink_group',
      summary: 'Unlink a group from a community; its members stay in the community.',
      description:
        'For the community’s admins (403 not_group_admin). A group not linked to that community is 409 group_not_linked, and the announcement group 400 invalid_parameter; nothing changes. community.unlinked follows.',
      run: (instanceId, communityId, groupId) => communities.unlink(instanceId, communityId, groupId),
    }),
  ]
}

/** link_group and unlink_group: one community, one group, answered with both ids as the network writes them. */
function linkOperation({
  name,
  summary,
  description,
  run,
}: {
  name: string
  summary: string
  description: string
  run(instanceId: string, communityId: string, groupId: string): Promise<void>
}): Operation {
  return defineOperation({
    name,
    tag: 'Communities',
    summary,
    description,
    auth: 'token',
    instance: true,
    fields: { community_id: COMMUNITY_ID, group_id: GROUP_ID },
    answer: LINK_ANSWER,
    example: { status: 'success', community_id: COMMUNITY_SAMPLE.id, group_id: GROUP_SAMPLE.id },
    handle: async ({ params, instance }) => {
      await run(instance.id, params.community_id, params.group_id)
      return {
        status: 'success',
        community_id: parseGroupId(params.community_id),
        group_id: parseGroupId(params.group_id),
      }
    },
  })
}
