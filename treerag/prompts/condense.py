"""Prompt that turns a follow-up chat message into a standalone question."""

CONDENSE_PROMPT = """Rewrite the last user message as a standalone question that can be understood
without the conversation: resolve pronouns and references from the earlier turns. A pronoun
(he, she, it, they, 他, 她, 它) stands for the entity the previous answer was about — the
person or thing it named and cited — not for the topic of the previous question. Keep the
language of the last message. Reply with the question only.

Conversation:
{history}

Last user message: {message}"""
